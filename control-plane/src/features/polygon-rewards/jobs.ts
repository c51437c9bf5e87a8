import { type BackgroundJob, type ChainFollower, followerJob, type QueueDeps } from "../../background-job.ts";
import { QUEUES } from "../../queues.ts";

/**
 * The Polygon snapshot pass (indexer.ts) every POLYGON_POLL_INTERVAL_MS: new checkpoints' snapshots, the
 * interval snapshot when due, backfill. A restarted worker resumes from the log cursor in Postgres.
 */
export function polygonRewardsJobs(
  deps: QueueDeps & { indexer: ChainFollower; intervalMs: number },
): BackgroundJob[] {
  return [
    followerJob({
      ...deps,
      logger: deps.logger.child({ component: "polygon-snapshots" }),
      name: QUEUES.polygonSnapshots.name,
      everyMs: deps.intervalMs,
      follower: deps.indexer,
    }),
  ];
}
