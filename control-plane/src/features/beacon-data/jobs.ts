import {
  type BackgroundJob,
  type ChainFollower,
  type QueueDeps,
  repeatingJob,
} from "../../background-job.ts";

export const BEACON_INDEX_QUEUE = "beacon-data-index";

/**
 * One indexer step every BEACON_INDEXER_INTERVAL_MS. Several workers are safe because each epoch write
 * checks the cursor under the indexer's advisory lock; a failed step (node unreachable) is retried by the
 * next run.
 */
export function beaconDataJobs(
  deps: QueueDeps & { indexer: ChainFollower; intervalMs: number },
): BackgroundJob[] {
  return [
    repeatingJob({
      ...deps,
      logger: deps.logger.child({ component: "beacon-indexer" }),
      name: BEACON_INDEX_QUEUE,
      everyMs: deps.intervalMs,
      run: () => deps.indexer.runOnce(),
    }),
  ];
}
