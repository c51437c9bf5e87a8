import type { Redis } from "@stake/db/redis/client";

interface Entry<V> {
  value: Promise<V>;
  expires: number;
  /** When the value was loaded (a failed refresh leaves it). */
  loaded: number;
  refreshing: boolean;
  /** Asked for since eviction last passed it (its second chance). */
  used: boolean;
}

/**
 * In-process read-through cache with a short fallback TTL. Concurrent misses share one lookup. Any
 * message on the invalidation channel clears every cache, so a deactivated key or disabled provider
 * stops working within the pub/sub delivery time (well under a second) on every gateway process.
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
  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: string) => Promise<V>,
    options: { maxEntries?: number; maxStaleMs?: number } = {},
  ) {
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#maxStaleMs = Math.max(options.maxStaleMs ?? 300_000, ttlMs);
  }

  get(key: string): Promise<V> {
    const now = Date.now();
    let hit = this.#entries.get(key);
    if (hit && now - hit.loaded > this.#maxStaleMs) {
      this.#entries.delete(key);
      hit = undefined;
    }
    if (hit) {
      hit.used = true;
      if (hit.expires <= now && !hit.refreshing) this.#refresh(key, hit, now);
      return hit.value;
    }
    const value = this.load(key);
    this.#entries.set(key, { value, expires: now + this.ttlMs, loaded: now, refreshing: false, used: false });
    // A failed lookup (database down) is not cached.
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    if (this.#entries.size > this.#maxEntries) this.#evict();
    return value;
  }

  /** A Map keeps insertion order: the oldest entries come first, and a used one moves to the end, unused. */
  #evict() {
    for (const [key, entry] of this.#entries) {
      this.#entries.delete(key);
      if (!entry.used) return;
      entry.used = false;
      this.#entries.set(key, entry);
    }
  }

  #refresh(key: string, entry: Entry<V>, now: number) {
    entry.refreshing = true;
    this.load(key).then(
      (fresh) => {
        // Only if no invalidation replaced or dropped the entry meanwhile.
        if (this.#entries.get(key) === entry)
          this.#entries.set(key, {
            value: Promise.resolve(fresh),
            expires: now + this.ttlMs,
            loaded: now,
            refreshing: false,
            used: entry.used,
          });
      },
      () => {
        entry.refreshing = false;
      },
    );
  }

  clear(): void {
    this.#entries.clear();
  }
}

/** Subscribes a dedicated connection (a subscribed client can run nothing else) to the channel. */
export async function subscribeInvalidations(subscriber: Redis, channel: string, onMessage: () => void) {
  subscriber.on("message", (ch: string) => {
    if (ch === channel) onMessage();
  });
  // After a reconnect messages may have been missed: drop everything to be safe.
  subscriber.on("ready", onMessage);
  await subscriber.subscribe(channel);
}
