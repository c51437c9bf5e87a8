import type { Db } from "@stake/db/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import { resolveNetwork } from "../beacon-provisioning/job.ts";
import { createBeaconApi, createExecutionApi } from "./chain-clients.ts";
import { createIndexer, type IndexerDeps } from "./indexer.ts";
import { createIndexerRepo } from "./indexer-repo.ts";

export const BEACON_INDEX_QUEUE = "beacon-data-index";

/** The indexer's parts built from configuration (the benchmark times them one by one). */
export function beaconIndexerDeps(deps: { db: Db; config: Readonly<Config>; logger: Logger }): IndexerDeps {
  const c = deps.config.beaconData;
  return {
    beacon: createBeaconApi({ url: deps.config.eth.beaconUrl, timeoutMs: deps.config.eth.beaconTimeoutMs }),
    execution: createExecutionApi({ url: c.executionUrl, timeoutMs: c.executionTimeoutMs }),
    repo: createIndexerRepo(deps.db),
    depositContract: resolveNetwork(deps.config.eth).depositContract,
    maxEpochsPerStep: c.maxEpochsPerStep,
    startEpoch: c.startEpoch,
    backfillEpochs: c.backfillEpochs,
    logger: deps.logger.child({ component: "beacon-indexer" }),
  };
}

/** The indexer built from configuration (also used by tests to run steps directly). */
export function createBeaconIndexer(deps: { db: Db; config: Readonly<Config>; logger: Logger }) {
  return createIndexer(beaconIndexerDeps(deps));
}

/**
 * A repeatable BullMQ job (one scheduler, every BEACON_INDEXER_INTERVAL_MS) whose processor runs one
 * indexer step. Concurrency 1 per worker; several workers are safe because each epoch write checks the
 * cursor under an advisory lock. A failed step (node unreachable) is simply retried by the next run.
 */
export async function startBeaconIndexWorker(deps: {
  db: Db;
  connection: Redis;
  config: Readonly<Config>;
  logger: Logger;
}) {
  const prefix = createRedisKeys(deps.config.redisPrefix).queuePrefix;
  const indexer = createBeaconIndexer(deps);
  const queue = new Queue(BEACON_INDEX_QUEUE, { connection: deps.connection, prefix });
  await queue.upsertJobScheduler(
    "beacon-data-step",
    { every: deps.config.beaconData.intervalMs },
    { name: "step", opts: { removeOnComplete: 100, removeOnFail: 100 } },
  );
  const worker = new Worker(BEACON_INDEX_QUEUE, () => indexer.step(), {
    connection: deps.connection,
    prefix,
    concurrency: 1,
  });
  worker.on("failed", (_job, err) => deps.logger.warn({ err }, "beacon indexer step failed"));
  worker.on("error", (err) => deps.logger.error({ err }, "beacon indexer worker error"));
  return {
    isRunning: () => worker.isRunning(),
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
