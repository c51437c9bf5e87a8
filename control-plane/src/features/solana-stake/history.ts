import { base58 } from "@scure/base";
import { DECIMALS, parseUnits } from "@stake/db/units";
import { fundedLamports } from "../../chains/solana.ts";
import { initialFunding } from "./balance.ts";
import { IDS } from "./builder.ts";
import type { LoadedStake } from "./chain-reads.ts";
import { SolanaAnswers } from "./client.ts";
import { lamportsToSol } from "./codec.ts";
import { epochClock } from "./epochs.ts";
import { decodeOrSkip } from "./message.ts";
import { type Deps, fill, type Selector, selectAccounts } from "./rewards.ts";

interface Event {
  event_type: string;
  timestamp: string;
  epoch: number;
  stake_account: string;
  details: Record<string, unknown>;
  /** Unix seconds, for sorting and the time filter. */
  t: number;
}
interface Sig {
  signature: string;
  slot: number;
  blockTime: number | null;
  err: unknown;
}

const STAKE_EVENTS: Record<number, string> = {
  2: "delegated",
  3: "split",
  4: "withdrawn",
  5: "deactivated",
  7: "merged",
  1: "authorized",
  8: "authorized",
  10: "authorized",
  11: "authorized",
};

/** At most this many signature pages (1,000 each) are read per account and request. */
const MAX_SIGNATURE_PAGES = 10;

/**
 * The account's signatures from newest back to `since` (Unix seconds): paging stops at the first page that
 * reaches further back than the window, so the calls a request makes follow its time window, not the
 * account's whole life.
 */
async function signatures(deps: Deps, account: string, since: number): Promise<Sig[]> {
  const all: Sig[] = [];
  let before: string | undefined;
  for (let page = 0; page < MAX_SIGNATURE_PAGES; page++) {
    const sigs: Sig[] = await deps.rpc.call(
      "getSignaturesForAddress",
      [account, before ? { limit: 1000, before } : { limit: 1000 }],
      SolanaAnswers.signatures,
    );
    all.push(...sigs);
    const oldest = sigs.at(-1);
    if (sigs.length < 1000 || (oldest?.blockTime ?? 0) < since) break;
    before = oldest?.signature;
  }
  return all;
}

/**
 * The stake an account was activated with, when its creation lies before the requested window (so its
 * transaction was not fetched): read from its first transaction, and only when the activation itself is
 * inside the window; the delegation's current stake (rewards compounded) if the history is gone.
 */
async function initialStakeSol(deps: Deps, stake: LoadedStake, rent: bigint, activatedAt: number) {
  const first = (await signatures(deps, stake.pubkey, 0)).at(-1);
  const funding = activatedAt > 0 ? await initialFunding(deps.rpc, stake.pubkey, first) : null;
  return lamportsToSol(
    funding === null ? (stake.state.delegation?.stake ?? 0n) : funding > rent ? funding - rent : 0n,
  );
}

/** Events decoded from one stake account's own transactions (oldest first). */
export async function txEvents(
  deps: Deps,
  stake: LoadedStake,
  rent: bigint,
  slotsPerEpoch: number,
  window: { start: number; end: number },
): Promise<Event[]> {
  const out: Event[] = [];
  // Only transactions inside the requested window are fetched: one getTransaction each.
  const sigs = (await signatures(deps, stake.pubkey, window.start))
    .filter((s) => !s.err && s.blockTime !== null && s.blockTime >= window.start && s.blockTime <= window.end)
    .reverse();
  for (const s of sigs) {
    const tx = await deps.rpc.call(
      "getTransaction",
      [s.signature, { encoding: "base64", maxSupportedTransactionVersion: 0 }],
      SolanaAnswers.transaction,
    );
    const decoded = tx && decodeOrSkip(tx);
    if (!tx || !decoded) continue;
    const t = s.blockTime ?? tx.blockTime ?? 0;
    const base = {
      timestamp: new Date(t * 1000).toISOString(),
      epoch: Math.floor(s.slot / slotsPerEpoch),
      stake_account: stake.pubkey,
      t,
    };
    const vote = decoded.instructions.find((i) => i.programId === IDS.stake && i.data[0] === 2)?.accounts[1];
    for (const ix of decoded.instructions) {
      const b = Buffer.from(ix.data);
      const lamports = fundedLamports(ix, stake.pubkey);
      if (lamports !== null) {
        const init = decoded.instructions.find(
          (i) => i.programId === IDS.stake && i.data[0] === 0 && i.accounts[0] === stake.pubkey,
        );
        out.push({
          ...base,
          event_type: "account_created",
          details: {
            initial_stake_sol: lamportsToSol(lamports > rent ? lamports - rent : 0n),
            validator_vote_key: vote ?? null,
            stake_authority: init ? base58.encode(init.data.subarray(4, 36)) : null,
            withdraw_authority: init ? base58.encode(init.data.subarray(36, 68)) : null,
            signature: s.signature,
          },
        });
      }
      if (ix.programId !== IDS.stake || ix.accounts[0] !== stake.pubkey || b.length < 4) continue;
      const type = STAKE_EVENTS[b.readUInt32LE(0)];
      if (!type) continue;
      const details: Record<string, unknown> = { signature: s.signature };
      if (type === "delegated") details.validator_vote_key = ix.accounts[1];
      if (type === "withdrawn")
        Object.assign(details, {
          amount_sol: lamportsToSol(b.readBigUInt64LE(4)),
          recipient: ix.accounts[1],
        });
      if (type === "split")
        Object.assign(details, {
          amount_sol: lamportsToSol(b.readBigUInt64LE(4)),
          new_stake_account: ix.accounts[1],
        });
      if (type === "merged") details.source_stake_account = ix.accounts[1];
      if (type === "authorized" && b.length >= 40) details.new_authority = base58.encode(b.subarray(4, 36));
      // The create transaction's Delegate is part of account_created.
      if (type === "delegated" && out.at(-1)?.details.signature === s.signature) continue;
      out.push({ ...base, event_type: type, details });
    }
  }
  return out;
}

/**
 * History of stake accounts: events decoded from their transactions plus two synthetic kinds —
 * `delegation_activated` (the epoch after activation, when the stake becomes effective) and `rewards_earned`
 * (one per completed epoch with rewards, from the same Postgres-cached data as /rewards). Oldest first.
 */
export async function history(
  deps: Deps,
  q: Selector & {
    start_time: number;
    end_time: number;
    page: number;
    page_size: number;
    excluded_event_type?: string[] | undefined;
  },
  inScope: (a: string) => void,
) {
  const clock = await epochClock(deps.rpc, deps.repo);
  const { address, stakes } = await selectAccounts(deps.rpc, q, inScope);
  const [rent, votes] = await Promise.all([
    deps.rpc.call("getMinimumBalanceForRentExemption", [200], SolanaAnswers.lamports),
    deps.rpc.call("getVoteAccounts", [], SolanaAnswers.voteAccounts),
  ]);
  const identity = new Map([...votes.current, ...votes.delinquent].map((v) => [v.votePubkey, v.nodePubkey]));
  const events: Event[] = [];
  let minEpoch = clock.current;
  for (const s of stakes) {
    const own = await txEvents(deps, s, BigInt(rent), clock.slotsPerEpoch, {
      start: q.start_time,
      end: q.end_time,
    });
    events.push(...own);
    const d = s.state.delegation;
    if (d) minEpoch = Math.min(minEpoch, Number(d.activationEpoch));
    const activeAt = d ? Number(d.activationEpoch) + 1 : null;
    if (d && activeAt !== null && activeAt <= clock.current && d.deactivationEpoch !== d.activationEpoch) {
      const t = (await clock.starts(activeAt, activeAt)).get(activeAt) ?? 0;
      const created = own.find((e) => e.event_type === "account_created")?.details.initial_stake_sol;
      if (t >= q.start_time && t <= q.end_time)
        events.push({
          event_type: "delegation_activated",
          timestamp: new Date(t * 1000).toISOString(),
          epoch: activeAt,
          stake_account: s.pubkey,
          t,
          details: {
            status_changed_from: "activating",
            status_changed_to: "active",
            active_stake_sol: created ?? (await initialStakeSol(deps, s, BigInt(rent), t)),
            validator_vote_key: d.voter,
          },
        });
    }
  }
  // Rewards for completed epochs since the first activation (filled into the cache if missing).
  const accounts = stakes.map((s) => s.pubkey);
  const last = clock.current - 1;
  const starts = await clock.starts(minEpoch, clock.current);
  const inWindow = (e: number) => {
    const t = starts.get(e + 1);
    return t !== undefined && t >= q.start_time && t <= q.end_time;
  };
  for (let e = minEpoch; e <= last && accounts.length; e++) if (inWindow(e)) await fill(deps, stakes, e);
  const rows = accounts.length ? await deps.repo.rowsFor(accounts, minEpoch, last) : [];
  const validators = new Map<string, { epochs: Set<number>; lamports: bigint }>();
  for (const r of rows) {
    const amount = r.inflationLamports + r.mevLamports;
    if (amount === 0n || !inWindow(r.epoch)) continue;
    const t = starts.get(r.epoch + 1) as number;
    events.push({
      event_type: "rewards_earned",
      timestamp: new Date(t * 1000).toISOString(),
      epoch: r.epoch,
      stake_account: r.stakeAccount,
      t,
      details: {
        rewards_sol: lamportsToSol(amount),
        inflation_rewards_sol: lamportsToSol(r.inflationLamports),
        mev_rewards_sol: lamportsToSol(r.mevLamports),
        new_balance_sol: lamportsToSol((r.postBalanceLamports ?? 0n) + r.mevLamports),
      },
    });
    if (r.voter) {
      const v = validators.get(r.voter) ?? { epochs: new Set<number>(), lamports: 0n };
      v.epochs.add(r.epoch);
      v.lamports += amount;
      validators.set(r.voter, v);
    }
  }
  const inRange = events
    .filter((e) => e.t >= q.start_time && e.t <= q.end_time)
    .sort((a, b) => a.t - b.t || a.epoch - b.epoch);
  const excluded = new Set(q.excluded_event_type ?? []);
  const shown = inRange.filter((e) => !excluded.has(e.event_type));
  const rewardEvents = inRange.filter((e) => e.event_type === "rewards_earned");
  const totalRewards = rewardEvents.reduce((n, e) => n + solToLamports(e.details.rewards_sol as string), 0n);
  const firstReward = rewardEvents[0];
  const startBal = firstReward
    ? solToLamports(firstReward.details.new_balance_sol as string) -
      solToLamports(firstReward.details.rewards_sol as string)
    : 0n;
  const endBal = stakes.reduce((n, s) => n + s.lamports, 0n);
  const pageItems = shown.slice((q.page - 1) * q.page_size, q.page * q.page_size);
  return {
    status: "success",
    data: {
      address,
      time_range: {
        start: new Date(q.start_time * 1000).toISOString(),
        end: new Date(q.end_time * 1000).toISOString(),
      },
      summary: {
        total_rewards_earned: { sol: lamportsToSol(totalRewards) },
        starting_balance: { sol: lamportsToSol(startBal) },
        ending_balance: { sol: lamportsToSol(endBal) },
        epochs_active: new Set(rewardEvents.map((e) => e.epoch)).size,
        status_changes: inRange.filter((e) =>
          ["account_created", "delegation_activated", "deactivated", "withdrawn"].includes(e.event_type),
        ).length,
      },
      history: pageItems.map(({ t: _t, ...e }) => e),
      validators: [...validators].map(([vote, v]) => ({
        vote_account: vote,
        identity: identity.get(vote) ?? null,
        epochs_delegated: v.epochs.size,
        total_rewards_from_validator: { sol: lamportsToSol(v.lamports) },
      })),
    },
    pagination: {
      page: q.page,
      page_size: q.page_size,
      total_events: shown.length,
      has_more: q.page * q.page_size < shown.length,
    },
    metadata: { query_time: new Date().toISOString() },
  };
}

/** Inverse of lamportsToSol for our own strings (exact, no floats). */
const solToLamports = (sol: string): bigint => parseUnits(sol, DECIMALS.sol);
