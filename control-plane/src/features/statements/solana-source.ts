import type { SolanaStatementReads } from "../solana-stake/statement-reads.ts";
import { createDailySource, scopeAccounts } from "./daily-source.ts";
import type { StatementSource } from "./source.ts";

const dayOf = (seconds: number) => new Date(seconds * 1000).toISOString().slice(0, 10);
const secondsOf = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/**
 * Solana's statement rows: one per stake account of the organisation's `solana` scope (a wallet listed
 * there stands for its stake accounts) and day, through the stake-account area's port: earned = the
 * rewards (inflation + MEV) of the epochs credited that day, the numbers of `GET /api/v1/rewards`;
 * withdrawn = the lamports its Withdraw instructions moved out that day. Lamports (10^-9 SOL).
 */
export function createSolanaStatements(deps: { reads: SolanaStatementReads }): StatementSource {
  return createDailySource({
    chain: "solana",
    token: "sol",
    baseUnit: "lamports",
    decimals: 9,
    accounts: (org) => deps.reads.stakeAccounts(scopeAccounts(org, "solana")),
    async month(account, m) {
      const got = await deps.reads.between(account, secondsOf(m.start), secondsOf(m.end));
      const day = (a: { t: number; lamports: bigint }) => ({ date: dayOf(a.t), amount: a.lamports });
      return { earned: got.earned.map(day), withdrawn: got.withdrawn.map(day) };
    },
    closed: (m) => deps.reads.creditedBefore(secondsOf(m.end)),
  });
}
