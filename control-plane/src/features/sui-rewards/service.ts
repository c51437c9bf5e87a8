import { unitsToNumber } from "@stake/db/units";
import { AppError, notIndexedYet } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import type { AssertServing } from "../../platform/chain-identity/guard.ts";
import type { SuiFollows } from "./follows.ts";
import type { IndexedPool, SuiRepo } from "./repo.ts";
import { isActive, RateTable, rewardRows } from "./rewards.ts";
import type { DailyRewardsResponse, RewardsPageQuery, RewardsRequest } from "./schemas.ts";

const DAY_MS = 86_400_000n;
const utcDate = (ms: bigint) => new Date(Number(ms)).toISOString().slice(0, 10);

/**
 * Chain C rewards: one row per finished epoch whose start date lies in the range and in which the
 * delegator had stake active in one of the operator's pools, computed from the indexed exchange rates.
 * A delegator queried for the first time is read from the node once by the worker (the request waits for
 * it a moment); the worker keeps it in sync after.
 */
export function createSuiRewardsService(deps: {
  repo: SuiRepo;
  /** Enqueues a delegator's first sync and waits for it (jobs.ts `createDelegatorSync`). */
  syncDelegator: (address: string) => Promise<void>;
  follows: Pick<SuiFollows, "follow">;
  validators: readonly string[];
  /** SUI_INDEX_FROM_EPOCH: rates before it (and after a pool's activation) were never read. */
  indexFromEpoch?: number | undefined;
  /** The worker's pass interval: a followed delegator is never staler than that. */
  indexIntervalMs: number;
  /** Throws 503 CHAIN_MISMATCH while the Sui node serves another chain than the indexed one. */
  assertServing: AssertServing;
}) {
  const { repo } = deps;
  const operator = new Set(deps.validators);
  // Indexed rates never change: a pool's table is rebuilt only when the indexer has read further.
  const tableCache = new Map<string, { through: string; table: RateTable }>();

  async function rateTables(pools: IndexedPool[], chain: number | null): Promise<Map<string, RateTable>> {
    // Keyed by the chain too: a re-indexed chain may reach the same epoch with other rates.
    const through = (p: IndexedPool) => `${chain}:${p.indexedThroughEpoch}`;
    const stale = pools.filter((p) => tableCache.get(p.poolId)?.through !== through(p));
    if (stale.length) {
      const rates = await repo.rates(stale.map((p) => p.poolId));
      for (const p of stale) {
        tableCache.set(p.poolId, {
          through: through(p),
          table: new RateTable(rates.get(p.poolId) ?? []),
        });
      }
    }
    return new Map(pools.map((p) => [p.poolId, tableCache.get(p.poolId)!.table]));
  }

  return {
    async dailyRewards(
      input: RewardsRequest & RewardsPageQuery,
      auth: StakingAuth,
    ): Promise<DailyRewardsResponse> {
      const address = input.stake_account_address;
      assertInScope(auth, "sui", address);
      const chain = await deps.assertServing();
      const [allPools, known] = await Promise.all([repo.pools(), repo.delegator(address)]);
      const pools = allPools.filter(
        (p) => operator.has(p.validatorAddress) && p.indexedThroughEpoch !== null,
      );
      if (!pools.length) {
        throw notIndexedYet("Sui pools are not indexed yet; retry shortly", 30);
      }
      // A scoped address is followed by the scope; any other only while queried, within the org's cap.
      const scoped = (auth.scope.sui?.delegator_addresses ?? []).length > 0;
      const followed = scoped
        ? { alreadyFollowed: true }
        : await deps.follows.follow(auth.organisationId, address);
      // One no longer followed may be stale: read again unless synced within one of the worker's passes.
      const stale =
        !known?.syncedAt ||
        (!followed.alreadyFollowed && Date.now() - known.syncedAt.getTime() > deps.indexIntervalMs);
      if (stale) await deps.syncDelegator(address);

      // An epoch's row needs the next epoch's rate: only epochs before every pool's last indexed one.
      const lastFinished = Math.min(...pools.map((p) => p.indexedThroughEpoch ?? 0)) - 1;
      const from = BigInt(Date.parse(`${input.start_date}T00:00:00Z`));
      const to = BigInt(Date.parse(`${input.end_date}T00:00:00Z`)) + DAY_MS;
      const [epochs, stakes, tables] = await Promise.all([
        repo.epochsStartingBetween(from, to),
        repo.stakes(
          address,
          pools.map((p) => p.poolId),
        ),
        rateTables(pools, chain),
      ]);
      // A stake's value needs its pool's rate at its activation. Before the first indexed epoch of a pool
      // activated earlier, that rate was never read: refuse rather than value the stake 1:1.
      const from0 = deps.indexFromEpoch ?? 0;
      for (const s of stakes) {
        const pool = pools.find((p) => p.poolId === s.poolId)!;
        if (s.activationEpoch < from0 && pool.activationEpoch < from0)
          throw new AppError(
            "SUI_RATES_NOT_INDEXED",
            `A stake of this delegator activated at epoch ${s.activationEpoch}, before the first indexed exchange rate of its pool (epoch ${from0}, SUI_INDEX_FROM_EPOCH): its rewards cannot be computed`,
          );
      }
      const rowsEpochs = epochs.filter(
        (e) => e.epoch <= lastFinished && stakes.some((s) => isActive(s, e.epoch)),
      );
      const total = rowsEpochs.length;
      const totalPages = Math.ceil(total / input.limit);
      const page = rowsEpochs.slice((input.page - 1) * input.limit, input.page * input.limit);
      const rows = rewardRows(
        stakes,
        tables,
        page.map((e) => e.epoch),
      );
      return {
        rewards: rows.map((r, i) => ({
          epochReward: unitsToNumber(r.epochReward, 0),
          principal: r.principal.toString(),
          totalRewards: r.totalRewards.toString(),
          date: utcDate(page[i]!.startMs),
          epoch: r.epoch,
        })),
        pagination: {
          currentPage: input.page,
          totalPages,
          totalRewards: total,
          hasNextPage: input.page < totalPages,
          hasPrevPage: input.page > 1,
        },
      };
    },
  };
}

export type SuiRewardsService = ReturnType<typeof createSuiRewardsService>;
