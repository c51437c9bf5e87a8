import { DECIMALS, parseUnits } from "@stake/db/units";
import { loadStakes, walletStakeAccounts } from "./balance.ts";
import { IDS } from "./builder.ts";
import { SolanaAnswers } from "./client.ts";
import { epochClock } from "./epochs.ts";
import { txEvents } from "./history.ts";
import { type Deps, epochsInSpan, fill } from "./rewards.ts";

/** An amount at a moment (Unix seconds), lamports. */
export interface SolanaAmountAt {
  t: number;
  lamports: bigint;
}

/**
 * The statements' Solana reads (docs/architecture.md §12): a stake account's rewards of every completed
 * epoch credited in a time range, from the same Postgres cache and fill as `GET /api/v1/rewards`
 * (inflation + MEV, credited at the next epoch's first slot, the `rewards_earned` time of the history),
 * and the lamports withdrawn from it, decoded from its own transactions as `GET /history/events` does.
 * No scope check: the caller passes only its organisation's addresses.
 */
export function createSolanaStatementReads(deps: Deps & { assertServing: () => Promise<unknown> }) {
  const { rpc } = deps;
  return {
    /**
     * The stake accounts behind a scope's addresses: a stake account (or a closed one: its rewards and
     * history remain) is itself, any other account a wallet whose stake accounts are found by authority.
     */
    async stakeAccounts(addresses: readonly string[]): Promise<string[]> {
      const out = new Set<string>();
      for (let i = 0; i < addresses.length; i += 100) {
        const chunk = addresses.slice(i, i + 100);
        const r = await rpc.call(
          "getMultipleAccounts",
          [chunk, { encoding: "base64" }],
          SolanaAnswers.accounts,
        );
        for (const [j, address] of chunk.entries()) {
          const a = r.value[j] ?? null;
          if (!a || a.owner === IDS.stake) out.add(address);
          else for (const s of await walletStakeAccounts(rpc, address)) out.add(s.pubkey);
        }
      }
      return [...out].sort();
    },

    /** Rewards credited and lamports withdrawn in [start, end) (Unix seconds). */
    async between(account: string, start: number, end: number) {
      await deps.assertServing();
      const [stake] = await loadStakes(rpc, [account], { allowClosed: true });
      if (!stake) return { earned: [], withdrawn: [] };
      const clock = await epochClock(rpc, deps.repo);
      // Epochs overlapping [start − 1, end − 1] are those credited at or after `start`.
      const epochs = (await epochsInSpan(clock, start - 1, end - 1)).filter((e) => e.end < end);
      const earned: SolanaAmountAt[] = [];
      if (epochs.length) {
        for (const e of epochs) await fill(deps, [stake], e.epoch);
        const first = epochs[0]?.epoch ?? 0;
        const rows = await deps.repo.rowsFor([account], first, epochs.at(-1)?.epoch ?? first);
        const creditedAt = new Map(epochs.map((e) => [e.epoch, e.end]));
        for (const r of rows) {
          const t = creditedAt.get(r.epoch);
          if (t !== undefined) earned.push({ t, lamports: r.inflationLamports + r.mevLamports });
        }
      }
      const rent = await rpc.call("getMinimumBalanceForRentExemption", [200], SolanaAnswers.lamports);
      const events = await txEvents(deps, stake, BigInt(rent), clock.slotsPerEpoch, { start, end: end - 1 });
      const withdrawn = events
        .filter((e) => e.event_type === "withdrawn")
        .map((e) => ({ t: e.t, lamports: parseUnits(String(e.details.amount_sol), DECIMALS.sol) }));
      return { earned, withdrawn };
    },

    /** Whether every epoch credited before `end` (Unix seconds) has been: the current epoch began by then. */
    async creditedBefore(end: number) {
      const clock = await epochClock(rpc, deps.repo);
      const started = (await clock.starts(clock.current, clock.current)).get(clock.current);
      return started !== undefined && started >= end;
    },
  };
}

export type SolanaStatementReads = ReturnType<typeof createSolanaStatementReads>;
