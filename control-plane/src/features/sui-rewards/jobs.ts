import {
  type BackgroundJob,
  type ChainFollower,
  type QueueDeps,
  repeatingJob,
} from "../../background-job.ts";

export const SUI_INDEX_QUEUE = "sui-rewards-index";

/**
 * The Sui indexer every SUI_INDEX_INTERVAL_MS: one pass (new epochs' rates of the operator's pools, then
 * every followed delegator), resuming from the cursors in Postgres after a failed one.
 */
export function suiRewardsJobs(
  deps: QueueDeps & { indexer: ChainFollower; intervalMs: number },
): BackgroundJob[] {
  return [
    repeatingJob({
      ...deps,
      logger: deps.logger.child({ component: "sui-indexer" }),
      name: SUI_INDEX_QUEUE,
      everyMs: deps.intervalMs,
      run: () => deps.indexer.runOnce(),
    }),
  ];
}
