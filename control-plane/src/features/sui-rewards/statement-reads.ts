import type { SuiRepo } from "./repo.ts";
import { isActive, RateTable, rewardRows } from "./rewards.ts";

const utcDate = (ms: bigint) => new Date(Number(ms)).toISOString().slice(0, 10);

/** One epoch of a delegator's stakes in the operator's pools, MIST, dated like `POST /api/rewards`. */
export interface SuiEpochEarning {
  /** UTC date the epoch started (the rewards endpoint's `date`). */
  date: string;
  epoch: number;
  earned: bigint;
}

/** A closed stake: principal and the reward the chain paid (UnstakingRequestEvent), on its epoch's date. */
export interface SuiWithdrawal {
  date: string;
  epoch: number;
  amount: bigint;
}

/**
 * The statements' Sui reads (docs/architecture.md §12): what `POST /api/rewards` computes for a delegator,
 * as bigint MIST for every finished epoch starting in a date range, and the withdrawals of that range, from
 * what the worker indexed (a scope's delegators are followed by it). No scope check: the caller passes
 * only its organisation's delegators.
 */
export function createSuiStatementReads(deps: { repo: SuiRepo; validators: readonly string[] }) {
  const { repo } = deps;
  const operator = new Set(deps.validators);

  async function operatorPools() {
    const pools = (await repo.pools()).filter(
      (p) => operator.has(p.validatorAddress) && p.indexedThroughEpoch !== null,
    );
    // An epoch's reward needs the next epoch's rate: only epochs before every pool's last indexed one.
    const lastFinished = pools.length ? Math.min(...pools.map((p) => p.indexedThroughEpoch ?? 0)) - 1 : -1;
    return { pools, lastFinished };
  }

  return {
    /** Rewards per finished epoch starting in [from, to) (YYYY-MM-DD) and the withdrawals in those epochs. */
    async month(delegator: string, from: string, to: string) {
      const { pools, lastFinished } = await operatorPools();
      const [epochs, stakes, rates] = await Promise.all([
        repo.epochsStartingBetween(
          BigInt(Date.parse(`${from}T00:00:00Z`)),
          BigInt(Date.parse(`${to}T00:00:00Z`)),
        ),
        repo.stakes(
          delegator,
          pools.map((p) => p.poolId),
        ),
        repo.rates(pools.map((p) => p.poolId)),
      ]);
      const tables = new Map(pools.map((p) => [p.poolId, new RateTable(rates.get(p.poolId) ?? [])]));
      const finished = epochs.filter((e) => e.epoch <= lastFinished);
      const dated = finished.filter((e) => stakes.some((s) => isActive(s, e.epoch)));
      const rows = rewardRows(
        stakes,
        tables,
        dated.map((e) => e.epoch),
      );
      const dateOf = new Map(finished.map((e) => [e.epoch, utcDate(e.startMs)]));
      const earnings: SuiEpochEarning[] = rows.map((r) => ({
        date: dateOf.get(r.epoch) as string,
        epoch: r.epoch,
        earned: r.epochReward,
      }));
      const withdrawals: SuiWithdrawal[] = [];
      for (const s of stakes) {
        const date = s.unstakeEpoch === null ? undefined : dateOf.get(s.unstakeEpoch);
        if (s.unstakeEpoch !== null && date && s.rewardAmount !== null)
          withdrawals.push({ date, epoch: s.unstakeEpoch, amount: s.principal + s.rewardAmount });
      }
      return { earnings, withdrawals };
    },

    /** True once every epoch that started before `to` (YYYY-MM-DD) has finished and been indexed. */
    async finishedBefore(to: string) {
      const { lastFinished } = await operatorPools();
      if (lastFinished < 0) return false;
      const next = await repo.epochStart(lastFinished + 1);
      return next !== null && next >= BigInt(Date.parse(`${to}T00:00:00Z`));
    },
  };
}

export type SuiStatementReads = ReturnType<typeof createSuiStatementReads>;
