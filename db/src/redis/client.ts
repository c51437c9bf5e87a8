import { Redis } from "ioredis";

/**
 * ioredis client factory; no env reads. `maxRetriesPerRequest: null` is what BullMQ requires.
 * `autoPipelining: false` is for a client whose caller batches its own commands per event-loop turn (the
 * gateway's ledger), where ioredis's own batching would only add a second turn of delay.
 */
export function createRedis(
  url: string,
  options: { name?: string; forQueues?: boolean; autoPipelining?: boolean } = {},
) {
  return new Redis(url, {
    connectionName: options.name ?? "staking-platform",
    lazyConnect: false,
    enableAutoPipelining: !options.forQueues && options.autoPipelining !== false,
    ...(options.forQueues ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 2 }),
  });
}
