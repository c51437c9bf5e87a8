import type { Redis } from "@stake/db/redis/client";
import { invalidation } from "@stake/db/redis/invalidation";

interface Entry<V> {
  value: Promise<V>;
  expires: number;
  /** When the value was loaded (a failed refresh leaves it). */
  loaded: number;
  refreshing: boolean;
  /** Asked for since eviction last passed it (its second chance). */
  used: boolean;
  /** What the loaded value is about (`tagsOf`); undefined while its first lookup is in flight. */
  tags?: readonly string[];
}

/**
 * In-process read-through cache with a short fallback TTL. Concurrent misses share one lookup. A message
 * on the invalidation channel drops the entries it names (`drop`, `dropTagged`), so a deactivated key or
 * disabled provider stops working within the pub/sub delivery time (well under a second) on every gateway
 * process, and every other entry stays. A lookup still in flight when a tag is dropped may have read the
 * row before the change: it is dropped too, whatever it was about.
 * An expired entry keeps answering while one background lookup refreshes it, so the TTL never puts a
 * database round trip in front of a request; a failed refresh keeps the old value and is retried later.
 * At most `maxEntries` are kept, so unknown keys cannot grow it without bound nor flush the keys in use:
 * the oldest entry not asked for since eviction last passed it goes first (a second-chance LRU, so a hit
 * only sets a flag: moving every hit to the end of the Map cost a rehash of the Map every few requests).
 *
 * Staleness is bounded: a value loaded more than `maxStaleMs` ago is not served (CACHE_MAX_STALE_MS). While
 * the database is down every refresh fails, so past that bound the request waits for a lookup of its own
 * and fails with it: a key deactivated just before an outage (its invalidation message lost) cannot keep
 * spending for the whole outage.
 */
export class ReadThroughCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #maxEntries: number;
  readonly #maxStaleMs: number;
  readonly #tagsOf: (value: V) => readonly string[];
  /** Tag → the cache keys whose loaded value carries it. */
  readonly #tagged = new Map<string, Set<string>>();
  /** Keys whose first lookup is in flight (untagged yet). */
  readonly #pending = new Set<string>();
  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: string) => Promise<V>,
    options: { maxEntries?: number; maxStaleMs?: number; tagsOf?: (value: V) => readonly string[] } = {},
  ) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#maxStaleMs = Math.max(options.maxStaleMs ?? 300_000, ttlMs);
    this.#tagsOf = options.tagsOf ?? (() => []);
  }

  get(key: string): Promise<V> {
    const now = Date.now();
    let hit = this.#entries.get(key);
    if (hit && now - hit.loaded > this.#maxStaleMs) {
      this.#delete(key);
      hit = undefined;
    }
    if (hit) {
      hit.used = true;
      if (hit.expires <= now && !hit.refreshing) this.#refresh(key, hit, now);
      return hit.value;
    }
    const value = this.load(key);
    const entry: Entry<V> = { value, expires: now + this.ttlMs, loaded: now, refreshing: false, used: false };
    this.#entries.set(key, entry);
    this.#pending.add(key);
    value.then(
      (v) => {
        if (this.#entries.get(key) !== entry) return;
        this.#pending.delete(key);
        this.#tag(key, entry, v);
      },
      // A failed lookup (database down) is not cached.
      () => {
        if (this.#entries.get(key) === entry) this.#delete(key);
      },
    );
    if (this.#entries.size > this.#maxEntries) this.#evict();
    return value;
  }

  /** A Map keeps insertion order: the oldest entries come first, and a used one moves to the end, unused. */
  #evict() {
    for (const [key, entry] of this.#entries) {
      this.#entries.delete(key);
      if (!entry.used) {
        this.#untag(key, entry);
        return;
      }
      entry.used = false;
      this.#entries.set(key, entry);
    }
  }

  #refresh(key: string, entry: Entry<V>, now: number) {
    entry.refreshing = true;
    this.load(key).then(
      (fresh) => {
        // Only if no invalidation replaced or dropped the entry meanwhile.
        if (this.#entries.get(key) === entry) {
          this.#untag(key, entry);
          const next: Entry<V> = {
            value: Promise.resolve(fresh),
            expires: now + this.ttlMs,
            loaded: now,
            refreshing: false,
            used: entry.used,
          };
          this.#entries.set(key, next);
          this.#tag(key, next, fresh);
        }
      },
      () => {
        entry.refreshing = false;
      },
    );
  }

  #tag(key: string, entry: Entry<V>, value: V) {
    entry.tags = this.#tagsOf(value);
    for (const tag of entry.tags) {
      const keys = this.#tagged.get(tag);
      if (keys) keys.add(key);
      else this.#tagged.set(tag, new Set([key]));
    }
  }

  #untag(key: string, entry: Entry<V>) {
    if (!entry.tags) this.#pending.delete(key);
    for (const tag of entry.tags ?? []) {
      const keys = this.#tagged.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) this.#tagged.delete(tag);
    }
  }

  #delete(key: string) {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#untag(key, entry);
  }

  /** Drops one entry (its lookup in flight included). */
  drop(key: string): void {
    this.#delete(key);
  }

  /** Drops the entries whose value carries `tag`, and every lookup still in flight. */
  dropTagged(tag: string): void {
    for (const key of [...(this.#tagged.get(tag) ?? [])]) this.#delete(key);
    for (const key of [...this.#pending]) this.#delete(key);
  }

  clear(): void {
    this.#entries.clear();
    this.#tagged.clear();
    this.#pending.clear();
  }
}

/**
 * Subscribes a dedicated connection (a subscribed client can run nothing else) to the channel; `onMessage`
 * gets each message (`@stake/db/redis/invalidation`), or `all` after a reconnect.
 */
export async function subscribeInvalidations(
  subscriber: Redis,
  channel: string,
  onMessage: (message: string) => void,
) {
  subscriber.on("message", (ch: string, message: string) => {
    if (ch === channel) onMessage(message);
  });
  // After a reconnect messages may have been missed: drop everything to be safe.
  subscriber.on("ready", () => onMessage(invalidation.all));
  await subscriber.subscribe(channel);
}
