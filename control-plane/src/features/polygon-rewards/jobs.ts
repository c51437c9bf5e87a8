import { type BackgroundJob, type ChainFollower, followerJob, type QueueDeps } from "../../background-job.ts";

export const POLYGON_SNAPSHOT_QUEUE = "polygon-rewards-snapshots";

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
      name: POLYGON_SNAPSHOT_QUEUE,
      everyMs: deps.intervalMs,
      follower: deps.indexer,
    }),
  ];
}
