import type { Logger } from "../../log.ts";
import type { SuiNode } from "./client.ts";
import type { SuiIndexerRepo } from "./indexer-repo.ts";

/** Epochs read per round trip (Sui's GraphQL multi-get limit). */
const BATCH = 50;

/**
 * Follows the operator's staking pools and the delegators of interest into Postgres. Every step is
 * idempotent and resumes from its cursor (a pool's last indexed epoch, a delegator's event cursor), so a
 * crash or a restart only repeats reads.
 */
export function createSuiIndexer(deps: {
  node: SuiNode;
  repo: SuiIndexerRepo;
  /** The operator's validator addresses (lower-case); their pools are indexed. */
  validators: readonly string[];
  /** First epoch to read rates from (default: each pool's activation epoch, i.e. its whole history). */
  fromEpoch?: number | undefined;
  /** Addresses outside every scope queried within the follow expiry (follows.ts `recent`). */
  recentlyQueried: () => Promise<string[]>;
  logger: Logger;
}) {
  const { node, repo, logger } = deps;
  const wanted = new Set(deps.validators);

  /** Rates (and epoch start times) of every epoch of the operator's pools up to the current one. */
  async function indexPools(): Promise<{ epoch: number; pools: number }> {
    const current = await node.currentEpoch();
    const pools = current.pools.filter((p) => wanted.has(p.validatorAddress));
    for (const v of wanted) {
      if (!pools.some((p) => p.validatorAddress === v)) {
        logger.warn({ validator: v }, "configured Sui validator is not in the active set");
      }
    }
    for (const pool of pools) await repo.upsertPool(pool);
    const stored = new Map((await repo.pools()).map((p) => [p.poolId, p]));
    for (const pool of pools) {
      const through = stored.get(pool.poolId)?.indexedThroughEpoch;
      let next = through == null ? Math.max(pool.activationEpoch, deps.fromEpoch ?? 0) : through + 1;
      while (next <= current.epoch) {
        const last = Math.min(next + BATCH - 1, current.epoch);
        const epochs = Array.from({ length: last - next + 1 }, (_, i) => next + i);
        const [rates, starts] = await Promise.all([
          node.rates(pool.exchangeRatesId, epochs),
          node.epochStarts(epochs),
        ]);
        await repo.transaction((tx) =>
          repo.saveRates(tx, { poolId: pool.poolId, rates, starts, through: last }),
        );
        next = last + 1;
      }
    }
    return { epoch: current.epoch, pools: pools.length };
  }

  /**
   * A delegator's stakes: unstake events first, then the owned objects. In that order a withdrawal landing
   * between the two reads is missed once (and found by the next sync) instead of being counted twice.
   */
  async function syncDelegator(address: string, cursor: string | null): Promise<void> {
    const unstakes = await node.unstakeEvents(address, cursor);
    const owned = await node.ownedStakes(address);
    await repo.transaction((tx) =>
      repo.saveStakes(tx, {
        delegator: address,
        owned,
        unstaked: unstakes.events.filter((e) => e.stakerAddress === address),
        cursor: unstakes.cursor,
      }),
    );
  }

  return {
    indexPools,
    syncDelegator,
    /** One pass: pools, then every followed delegator (in a scope, or queried within the expiry). */
    async runOnce(): Promise<{ epoch: number; pools: number; delegators: number }> {
      const result = await indexPools();
      const delegators = await repo.followedDelegators(await deps.recentlyQueried());
      for (const d of delegators) await syncDelegator(d.address, d.unstakeCursor);
      return { ...result, delegators: delegators.length };
    },
  };
}

export type SuiIndexer = ReturnType<typeof createSuiIndexer>;
