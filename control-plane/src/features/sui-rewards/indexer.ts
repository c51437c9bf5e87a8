import type { Db } from "@stake/db/client";
import { refusingInsaneNodes } from "../../background-job.ts";
import { NodeAnswerRefused } from "../../http/upstream.ts";
import type { Logger } from "../../log.ts";
import { type ChainGuardOptions, createChainGuard } from "../../platform/chain-identity/guard.ts";
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
  /** Opens the unit of work (the repository takes its `tx`). */
  db: Db;
  node: SuiNode;
  repo: SuiIndexerRepo;
  /** The operator's validator addresses (lower-case); their pools are indexed. */
  validators: readonly string[];
  /** First epoch to read rates from (default: each pool's activation epoch, i.e. its whole history). */
  fromEpoch?: number | undefined;
  /** Addresses outside every scope queried within the follow expiry (follows.ts `recent`). */
  recentlyQueried: () => Promise<string[]>;
  /** SUI_MAX_PAGES_PER_SYNC: also the rate batches one pass reads per pool (the rest next pass). */
  maxPages: number;
  /** The chain check of every pass and delegator sync (docs/architecture.md §13, "Chain identity"). */
  chain: ChainGuardOptions;
  logger: Logger;
}) {
  const { node, repo, logger } = deps;
  const wanted = new Set(deps.validators);
  const verifyChain = createChainGuard({
    ...deps.chain,
    area: "sui-rewards",
    identify: async () => ({ chain_identifier: await node.chainIdentifier() }),
    forget: () => {},
  });

  /** Rates (and epoch start times) of every epoch of the operator's pools up to the current one. */
  async function indexPools(): Promise<{ epoch: number; pools: number }> {
    const current = await node.currentEpoch();
    const pools = current.pools.filter((p) => wanted.has(p.validatorAddress));
    for (const v of wanted) {
      if (!pools.some((p) => p.validatorAddress === v)) {
        logger.warn({ validator: v }, "configured Sui validator is not in the active set");
      }
    }
    const stored = new Map((await repo.pools()).map((p) => [p.poolId, p]));
    // The chain's epoch does not move back: a node behind what is already indexed is not believed.
    for (const pool of pools) {
      const through = stored.get(pool.poolId)?.indexedThroughEpoch;
      if (through != null && current.epoch < through)
        throw new NodeAnswerRefused(
          `Sui node answered epoch ${current.epoch}, behind epoch ${through} already indexed`,
        );
    }
    for (const pool of pools) await repo.upsertPool(pool);
    for (const pool of pools) {
      const through = stored.get(pool.poolId)?.indexedThroughEpoch;
      let next = through == null ? Math.max(pool.activationEpoch, deps.fromEpoch ?? 0) : through + 1;
      // At most maxPages batches a pass: an epoch far ahead (a lie, or years of history) is read over
      // several passes from the stored `through`, never in one unbounded pass.
      for (let batches = 0; next <= current.epoch && batches < deps.maxPages; batches++) {
        const last = Math.min(next + BATCH - 1, current.epoch);
        const epochs = Array.from({ length: last - next + 1 }, (_, i) => next + i);
        const [rates, starts] = await Promise.all([
          node.rates(pool.exchangeRatesId, epochs),
          node.epochStarts(epochs),
        ]);
        await deps.db.transaction((tx) =>
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
    await deps.db.transaction((tx) =>
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
    verifyChain,
    /** A delegator's sync on demand; nothing is written while the node serves another chain. */
    async syncDelegator(address: string, cursor: string | null): Promise<void> {
      if (await verifyChain()) await syncDelegator(address, cursor);
    },
    /** One pass: pools, then every followed delegator (in a scope, or queried within the expiry). */
    runOnce: () =>
      refusingInsaneNodes(logger, async () => {
        if (!(await verifyChain())) return { epoch: -1, pools: 0, delegators: 0, refused: "CHAIN_MISMATCH" };
        const result = await indexPools();
        const delegators = await repo.followedDelegators(await deps.recentlyQueried());
        for (const d of delegators) await syncDelegator(d.address, d.unstakeCursor);
        return { ...result, delegators: delegators.length };
      }),
  };
}

export type SuiIndexer = ReturnType<typeof createSuiIndexer>;
