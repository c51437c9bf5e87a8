import type { Queue } from "bullmq";
import {
  type BackgroundJob,
  type ChainFollower,
  createJobQueue,
  followerJob,
  type QueueDeps,
  queueJob,
} from "../../background-job.ts";

export const BEACON_INDEX_QUEUE = "beacon-data-index";
/** Registrations waiting for their organisation's rollup (POST /api/validators/register enqueues one). */
export const BEACON_REGISTRATIONS_QUEUE = "beacon-data-registrations";
export type RegistrationsQueue = Queue<Record<string, never>>;

/**
 * One indexer step every BEACON_INDEXER_INTERVAL_MS; several workers are safe because each epoch write
 * checks the cursor under the indexer's advisory lock, and a failed step (node unreachable) is retried by
 * the next run. Beside it, the roll-up of new registrations on demand (each step does it too, should an
 * enqueued one be lost).
 */
export function beaconDataJobs(
  deps: QueueDeps & {
    indexer: ChainFollower;
    rollUpRegistrations: () => Promise<number>;
    intervalMs: number;
  },
): BackgroundJob[] {
  const logger = deps.logger.child({ component: "beacon-indexer" });
  return [
    followerJob({
      ...deps,
      logger,
      name: BEACON_INDEX_QUEUE,
      everyMs: deps.intervalMs,
      follower: deps.indexer,
    }),
    queueJob({
      ...deps,
      logger,
      name: BEACON_REGISTRATIONS_QUEUE,
      concurrency: 1,
      process: deps.rollUpRegistrations,
    }),
  ];
}

export const createRegistrationsQueue = (deps: { connection: QueueDeps["connection"]; prefix: string }) =>
  createJobQueue<Record<string, never>>(BEACON_REGISTRATIONS_QUEUE, deps);
