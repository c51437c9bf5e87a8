import { Redis } from "ioredis";

/**
 * ioredis client factory; no env reads. `maxRetriesPerRequest: null` is what BullMQ requires.
 * `autoPipelining: false` is for a client whose caller batches its own commands per event-loop turn (the
 * gateway's ledger), where ioredis's own batching would only add a second turn of delay.
 */
export function createRedis(
  url: string,
  options: {
    name?: string;
    forQueues?: boolean;
    autoPipelining?: boolean;
    /**
     * Gets the connection errors (each failed reconnect while Redis is away, at most one every 2 s once
     * backed off). Without it ioredis prints each one, stack and all, to stderr past the service's logger.
     */
    logger?: { warn: (fields: object, msg: string) => void };
  } = {},
) {
  const name = options.name ?? "staking-platform";
  const client = new Redis(url, {
    connectionName: name,
    lazyConnect: false,
    enableAutoPipelining: !options.forQueues && options.autoPipelining !== false,
    ...(options.forQueues ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 2 }),
  });
  const { logger } = options;
  if (logger) client.on("error", (err) => logger.warn({ err, redis: name }, "redis connection error"));
  return client;
}
