import type { Redis } from "ioredis";

/**
 * In-process read-through cache with a short fallback TTL. Concurrent misses share one lookup. Any
 * message on the invalidation channel clears every cache, so a deactivated key or disabled provider
 * stops working within the pub/sub delivery time (well under a second) on every gateway process.
 */
export class ReadThroughCache<V> {
  readonly #entries = new Map<string, { value: Promise<V>; expires: number }>();
  constructor(
    private readonly ttlMs: number,
    private readonly load: (key: string) => Promise<V>,
  ) {}

  get(key: string): Promise<V> {
    const now = Date.now();
    const hit = this.#entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    const value = this.load(key);
    this.#entries.set(key, { value, expires: now + this.ttlMs });
    // A failed lookup (database down) is not cached.
    value.catch(() => this.#entries.delete(key));
    if (this.#entries.size > 100_000) this.#entries.clear();
    return value;
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
