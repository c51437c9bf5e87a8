import { AppError } from "../../errors.ts";
import { loadStakes, walletStakeAccounts } from "./balance.ts";
import { assertPubkey, type LoadedStake } from "./chain-reads.ts";
import { SolanaAnswers, type SolanaRpc } from "./client.ts";
import { lamportsToSol } from "./codec.ts";
import { type EpochClock, epochClock } from "./epochs.ts";
import type { EpochTotals, SolanaRewardsRepo } from "./repo.ts";

const PERIOD_SECONDS = { weekly: 7 * 86_400, monthly: 31 * 86_400 } as const;

export interface Selector {
  wallet_address?: string | undefined;
  stake_accounts?: string[] | undefined;
}

/** Exactly one of wallet_address / stake_accounts, as for /balance. */
export async function selectAccounts(rpc: SolanaRpc, q: Selector, inScope: (a: string) => void) {
  if (q.wallet_address !== undefined && q.stake_accounts !== undefined) {
    throw new AppError("SELECTOR_CONFLICT", "Give exactly one of wallet_address or stake_accounts, not both");
  }
  if (q.wallet_address === undefined && q.stake_accounts === undefined) {
    throw new AppError("SELECTOR_REQUIRED", "Give exactly one of wallet_address or stake_accounts");
  }
  if (q.wallet_address !== undefined) {
    assertPubkey("wallet_address", q.wallet_address, true);
    inScope(q.wallet_address);
    return { address: q.wallet_address, stakes: await walletStakeAccounts(rpc, q.wallet_address) };
  }
  const list = [...new Set(q.stake_accounts)];
  list.forEach((k, i) => {
    assertPubkey(`stake_accounts.${i}`, k, false);
  });
  const stakes = await loadStakes(rpc, list, { allowClosed: true });
  // A closed account has no authority left to check, so its own address must be in scope.
  for (const s of stakes) inScope(s.state.withdrawer ?? s.pubkey);
  return { address: list.join(","), stakes };
}

export function assertSpan(start: number, end: number, maxSeconds: number, period: string) {
  if (end - start > maxSeconds) {
    throw new AppError("SPAN_EXCEEDS_PERIOD", `The span may not exceed one ${period} (${maxSeconds} s)`, {
      details: [{ field: "end_time", message: `At most ${maxSeconds} seconds after start_time` }],
    });
  }
}

/** Completed epochs (rewards already credited) overlapping [start, end], with their start and end times. */
export async function epochsInSpan(clock: EpochClock, start: number, end: number) {
  const cur = clock.current;
  const curStart = (await clock.starts(cur, cur)).get(cur) ?? end;
  const d = clock.nominalSeconds;
  const lo = Math.max(0, cur - Math.ceil((curStart - start) / d) - 2);
  const hi = Math.min(cur - 1, cur - Math.floor((curStart - end) / d) + 2);
  if (hi < lo) return [];
  const starts = await clock.starts(lo, hi + 1);
  const out: { epoch: number; start: number; end: number }[] = [];
  for (let e = lo; e <= hi; e++) {
    const s = starts.get(e);
    const t = starts.get(e + 1);
    if (s === undefined || t === undefined) continue;
    if (s <= end && t > start) out.push({ epoch: e, start: s, end: t });
  }
  return out;
}

/**
 * Fills the cache for (account, epoch) pairs not yet stored: inflation by getInflationReward (100 addresses
 * per call), MEV from the staker-rewards API by stake authority. Rows are written even for zero rewards, so a
 * past epoch is never asked for twice.
 */
export async function fill(deps: Deps, stakes: LoadedStake[], epoch: number) {
  const accounts = stakes.map((s) => s.pubkey);
  const have = await deps.repo.cachedAccounts(accounts, epoch);
  const missing = stakes.filter((s) => !have.has(s.pubkey));
  if (!missing.length) return;
  const inflation = new Map<string, { amount: number; postBalance: number } | null>();
  for (let i = 0; i < missing.length; i += 100) {
    const chunk = missing.slice(i, i + 100).map((s) => s.pubkey);
    const r = await deps.rpc.call("getInflationReward", [chunk, { epoch }], SolanaAnswers.inflationRewards);
    chunk.forEach((k, j) => {
      inflation.set(k, r[j] ?? null);
    });
  }
  const mev = new Map<string, bigint>();
  for (const authority of new Set(missing.map((s) => s.state.staker).filter((s): s is string => !!s))) {
    const url = `${deps.mevApiUrl}/api/v1/staker_rewards?stake_authority=${authority}&epoch=${epoch}&limit=10000`;
    const r = await deps.rpc.getJson(url, SolanaAnswers.mevRewards);
    for (const row of r.rewards) {
      const add = BigInt(row.amount) + BigInt(row.priority_fee_amount ?? 0);
      mev.set(row.claimant, (mev.get(row.claimant) ?? 0n) + add);
    }
  }
  await deps.repo.insertRewards(
    missing.map((s) => {
      const inf = inflation.get(s.pubkey) ?? null;
      return {
        stakeAccount: s.pubkey,
        epoch,
        inflationLamports: BigInt(inf?.amount ?? 0),
        mevLamports: mev.get(s.pubkey) ?? 0n,
        postBalanceLamports: inf ? BigInt(inf.postBalance) : null,
        voter: s.state.delegation?.voter ?? null,
      };
    }),
  );
}

export interface Deps {
  rpc: SolanaRpc;
  repo: SolanaRewardsRepo;
  mevApiUrl: string;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

export async function rewards(
  deps: Deps,
  q: Selector & { start_time: number; end_time: number; period: "epoch" | "weekly" | "monthly" },
  inScope: (a: string) => void,
) {
  const clock = await epochClock(deps.rpc, deps.repo);
  const max = q.period === "epoch" ? Math.ceil(clock.nominalSeconds) : PERIOD_SECONDS[q.period];
  assertSpan(q.start_time, q.end_time, max, q.period);
  const { address, stakes } = await selectAccounts(deps.rpc, q, inScope);
  const epochs = await epochsInSpan(clock, q.start_time, q.end_time);
  const accounts = stakes.map((s) => s.pubkey);
  const first = epochs[0]?.epoch ?? 0;
  const last = epochs.at(-1)?.epoch ?? -1;
  let totals: Map<number, EpochTotals> = accounts.length
    ? await deps.repo.totals(accounts, first, last)
    : new Map();
  const incomplete = epochs.filter((e) => (totals.get(e.epoch)?.accounts ?? 0) < accounts.length);
  if (incomplete.length) {
    for (const e of incomplete) await fill(deps, stakes, e.epoch);
    totals = await deps.repo.totals(accounts, first, last);
  }
  let total = 0n;
  const entries = epochs.map((e) => {
    const t = totals.get(e.epoch);
    const inflation = t?.inflation ?? 0n;
    const mev = t?.mev ?? 0n;
    total += inflation + mev;
    const post = t?.postBalance ?? 0n;
    return {
      epoch: e.epoch,
      time_start: iso(e.start),
      time_end: iso(e.end),
      rewards_earned: { sol: lamportsToSol(inflation + mev) },
      reward_types: {
        inflation_rewards: { sol: lamportsToSol(inflation) },
        mev_rewards: { sol: lamportsToSol(mev) },
      },
      starting_balance_sol: lamportsToSol(post > 0n ? post - inflation : 0n),
      ending_balance_sol: lamportsToSol(post > 0n ? post + mev : 0n),
    };
  });
  return {
    status: "success",
    data: {
      delegator_address: address,
      period: q.period,
      total_rewards: { sol: lamportsToSol(total) },
      rewards: entries,
    },
    metadata: { query_time: new Date().toISOString(), epochs_included: entries.length },
  };
}
