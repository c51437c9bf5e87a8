import { Redis } from "ioredis";

/** ioredis client factory; no env reads. `maxRetriesPerRequest: null` is what BullMQ requires. */
export function createRedis(url: string, options: { name?: string; forQueues?: boolean } = {}) {
  return new Redis(url, {
    connectionName: options.name ?? "staking-platform",
    lazyConnect: false,
    enableAutoPipelining: !options.forQueues,
    ...(options.forQueues ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 2 }),
  });
}
