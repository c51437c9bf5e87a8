import type { Db } from "@stake/db/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import type { Config } from "../../config.ts";
import { AppError, BuilderError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { createProvisionProcessor, PROVISION_QUEUE, type ProvisionJobData } from "./job.ts";
import { createProvisioningRepo } from "./repo.ts";

/**
 * The reason a client reads on a FAILED provision: a refusal of its request is told as is; anything else
 * (a database or programming fault) stays in the log, since its text can carry SQL, paths or key material.
 */
export function failureReason(err: unknown): string {
  if (err instanceof BuilderError || err instanceof AppError) return err.message;
  return "The validators could not be created because of an internal error; the operator has been alerted.";
}

/**
 * The BullMQ worker of provision jobs. `connection` must be created with `maxRetriesPerRequest: null`
 * (createRedis(url, {forQueues: true})). After the last attempt the provision becomes FAILED with the
 * error as reason; the job's transaction has already rolled back, so nothing partial remains.
 */
export function createProvisionWorker(deps: {
  db: Db;
  connection: Redis;
  config: Readonly<Config>;
  logger: Logger;
  concurrency?: number;
}): Worker<ProvisionJobData> {
  const repo = createProvisioningRepo(deps.db);
  const run = createProvisionProcessor({ repo, eth: deps.config.eth, logger: deps.logger });
  const worker = new Worker<ProvisionJobData>(
    PROVISION_QUEUE,
    async (job) => {
      try {
        await run(job.data.provisionId);
      } catch (err) {
        const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        deps.logger.error({ err, provisionId: job.data.provisionId, last }, "provision job failed");
        if (last) {
          await repo.setProvisionStatus(job.data.provisionId, "FAILED", { reason: failureReason(err) });
        }
        throw err;
      }
    },
    {
      connection: deps.connection,
      prefix: createRedisKeys(deps.config.redisPrefix).queuePrefix,
      concurrency: deps.concurrency ?? 1,
    },
  );
  worker.on("error", (err) => deps.logger.error({ err }, "provision worker error"));
  return worker;
}

/** The queue the HTTP side enqueues provision jobs on (same name and prefix as the worker). */
export function createProvisionQueue(connection: Redis, redisPrefix: string): Queue<ProvisionJobData> {
  return new Queue<ProvisionJobData>(PROVISION_QUEUE, {
    connection,
    prefix: createRedisKeys(redisPrefix).queuePrefix,
  });
}
