import { createRedisKeys } from "@stake/db/redis/keys";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Logger } from "./log.ts";

/**
 * A worker-process pass run every `everyMs` as a repeatable BullMQ job: one scheduler per queue, so several
 * worker processes never run it twice per tick, and concurrency 1. A failed pass is logged; the next one
 * starts from whatever the pass keeps in Postgres.
 */
export async function startRepeatingJob<R>(opts: {
  queue: string;
  everyMs: number;
  connection: Redis;
  redisPrefix: string;
  logger: Logger;
  run: () => Promise<R>;
}): Promise<{ worker: Worker; close(): Promise<void> }> {
  const { connection, logger } = opts;
  const prefix = createRedisKeys(opts.redisPrefix).queuePrefix;
  const queue = new Queue(opts.queue, { connection, prefix });
  await queue.upsertJobScheduler(
    opts.queue,
    { every: opts.everyMs },
    { name: "pass", opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  const worker = new Worker(
    opts.queue,
    async () => {
      const result = await opts.run();
      logger.info(result as object, "pass done");
      return result;
    },
    { connection, prefix, concurrency: 1 },
  );
  worker.on("failed", (_job, err) => logger.error({ err }, "pass failed"));
  worker.on("error", (err) => logger.error({ err }, "worker error"));
  return {
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
