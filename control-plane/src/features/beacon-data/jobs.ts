import {
  type BackgroundJob,
  type ChainFollower,
  createJobQueue,
  followerJob,
  type QueueDeps,
  queueJob,
} from "../../background-job.ts";
import { type JobQueue, QUEUES } from "../../queues.ts";

export type RegistrationsQueue = JobQueue<typeof QUEUES.beaconRegistrations.name>;

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
      name: QUEUES.beaconIndex.name,
      everyMs: deps.intervalMs,
      follower: deps.indexer,
    }),
    queueJob({
      ...deps,
      logger,
      name: QUEUES.beaconRegistrations.name,
      concurrency: 1,
      process: deps.rollUpRegistrations,
    }),
  ];
}

export const createRegistrationsQueue = (deps: { connection: QueueDeps["connection"]; prefix: string }) =>
  createJobQueue(QUEUES.beaconRegistrations.name, deps);
