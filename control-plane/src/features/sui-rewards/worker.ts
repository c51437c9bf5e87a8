import type { Db } from "@stake/db/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import { createSuiNode } from "./client.ts";
import { createSuiIndexer } from "./indexer.ts";
import { createSuiRepo } from "./repo.ts";

export const SUI_INDEX_QUEUE = "sui-rewards-index";

/**
 * The Sui indexer as a repeatable BullMQ job: every SUI_INDEX_INTERVAL_MS one pass (new epochs' rates of
 * the operator's pools, then every followed delegator). One job at a time; a failed pass is logged and
 * the next one resumes from the cursors in Postgres.
 */
export async function startSuiIndexWorker(deps: {
  db: Db;
  connection: Redis;
  config: Readonly<Config>;
  logger: Logger;
}): Promise<{ worker: Worker; close(): Promise<void> }> {
  const { config, logger } = deps;
  const log = logger.child({ component: "sui-indexer" });
  const prefix = createRedisKeys(config.redisPrefix).queuePrefix;
  const repo = createSuiRepo(deps.db);
  const indexer = createSuiIndexer({
    node: createSuiNode(config.sui, config.network),
    repo,
    ...config.sui,
    logger: log,
  });
  const queue = new Queue(SUI_INDEX_QUEUE, { connection: deps.connection, prefix });
  await queue.upsertJobScheduler(
    SUI_INDEX_QUEUE,
    { every: config.sui.indexIntervalMs },
    { name: "index", opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  const worker = new Worker(
    SUI_INDEX_QUEUE,
    async () => {
      const result = await indexer.runOnce();
      log.info(result, "sui index pass done");
      return result;
    },
    { connection: deps.connection, prefix, concurrency: 1 },
  );
  worker.on("failed", (_job, err) => log.error({ err }, "sui index pass failed"));
  worker.on("error", (err) => log.error({ err }, "sui index worker error"));
  return {
    worker,
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
