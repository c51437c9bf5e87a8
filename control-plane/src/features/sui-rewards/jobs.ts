import {
  type BackgroundJob,
  type ChainFollower,
  createJobQueue,
  enqueueAndWait,
  followerJob,
  type QueueDeps,
  queueJob,
} from "../../background-job.ts";
import { AppError, type ErrorCode, notIndexedYet } from "../../errors.ts";
import { type JobQueue, QUEUES, type QueuePayloads } from "../../queues.ts";
import type { SuiIndexer } from "./indexer.ts";

type DelegatorJob = QueuePayloads[typeof QUEUES.suiDelegators.name];
/** A node refusal is the job's answer to the request that asked for it, not a failed job. */
type DelegatorOutcome = { ok: true } | { error: { code: ErrorCode; message: string } };

/**
 * The Sui indexer every SUI_INDEX_INTERVAL_MS: one pass (new epochs' rates of the operator's pools, then
 * every followed delegator), resuming from the cursors in Postgres after a failed one. Beside it, the first
 * sync of a delegator a request asked for.
 */
export function suiRewardsJobs(
  deps: QueueDeps & {
    indexer: ChainFollower & Pick<SuiIndexer, "syncDelegator">;
    cursorOf: (address: string) => Promise<string | null>;
    intervalMs: number;
  },
): BackgroundJob[] {
  const logger = deps.logger.child({ component: "sui-indexer" });
  return [
    followerJob({
      ...deps,
      logger,
      name: QUEUES.suiIndex.name,
      everyMs: deps.intervalMs,
      follower: deps.indexer,
    }),
    queueJob({
      ...deps,
      logger,
      name: QUEUES.suiDelegators.name,
      concurrency: 4,
      async process(job): Promise<DelegatorOutcome> {
        try {
          await deps.indexer.syncDelegator(job.data.address, await deps.cursorOf(job.data.address));
          return { ok: true };
        } catch (err) {
          if (err instanceof AppError) return { error: { code: err.code, message: err.message } };
          throw err;
        }
      },
    }),
  ];
}

/**
 * The API's side of a delegator's first sync: enqueues it for the worker and waits up to `waitMs` for its
 * outcome. The node's refusal comes back as the job's error (502/504 as if the API had asked); no answer
 * in time is 503 NOT_INDEXED_YET with Retry-After (docs/spec.md, our additions).
 */
export function createDelegatorSync(deps: {
  queue: JobQueue<typeof QUEUES.suiDelegators.name>;
  waitMs: number;
}) {
  return async function syncDelegator(address: string): Promise<void> {
    const run = await enqueueAndWait<DelegatorJob, DelegatorOutcome>(deps.queue, { address }, deps.waitMs);
    if (run.done && "error" in run.value) throw new AppError(run.value.error.code, run.value.error.message);
    if (!run.done) {
      throw notIndexedYet("The delegator is not indexed yet; retry shortly", 5);
    }
  };
}

export const createDelegatorQueue = (deps: { connection: QueueDeps["connection"]; prefix: string }) =>
  createJobQueue(QUEUES.suiDelegators.name, deps);
