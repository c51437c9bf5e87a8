import type { Redis } from "ioredis";

/**
 * In-process read-through cache with a short fallback TTL. Concurrent misses share one lookup. Any
 * message on the invalidation channel clears every cache, so a deactivated key or disabled provider
 * stops working within the pub/sub delivery time (well under a second) on every gateway process.
 * An expired entry keeps answering while one background lookup refreshes it, so the TTL never puts a
 * database round trip in front of a request; a failed refresh keeps the old value and is retried later.
 * At most `maxEntries` are kept, least recently used first out, so unknown keys cannot grow it without
 * bound nor flush the keys in use.
 */
export class ReadThroughCache<V> {
  readonly #entries = new Map<string, { value: Promise<V>; expires: number; refreshing: boolean }>();
  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: string) => Promise<V>,
    private readonly maxEntries = 100_000,
  ) {}

  get(key: string): Promise<V> {
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit) {
      // A Map keeps insertion order: moving a hit to the end makes the first entry the least recently used.
      this.#entries.delete(key);
      this.#entries.set(key, hit);
      if (hit.expires <= now && !hit.refreshing) this.#refresh(key, hit, now);
      return hit.value;
    }
    const value = this.load(key);
    this.#entries.set(key, { value, expires: now + this.ttlMs, refreshing: false });
    // A failed lookup (database down) is not cached.
    value.catch(() => {
      if (this.#entries.get(key)?.value === value) this.#entries.delete(key);
    });
    if (this.#entries.size > this.maxEntries)
      this.#entries.delete(this.#entries.keys().next().value as string);
    return value;
  }

  #refresh(key: string, entry: { value: Promise<V>; expires: number; refreshing: boolean }, now: number) {
    entry.refreshing = true;
    this.load(key).then(
      (fresh) => {
        // Only if no invalidation replaced or dropped the entry meanwhile.
        if (this.#entries.get(key) === entry)
          this.#entries.set(key, {
            value: Promise.resolve(fresh),
            expires: now + this.ttlMs,
            refreshing: false,
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
