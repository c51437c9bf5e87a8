import type { SuiStatementReads } from "../sui-rewards/statement-reads.ts";
import { createDailySource, scopeAccounts } from "./daily-source.ts";
import type { StatementSource } from "./source.ts";

/**
 * Sui's statement rows: one per delegator of the organisation's `sui` scope and day, through the Sui area's
 * port over what its worker indexed: earned = the rewards of the epochs that started that day in the
 * operator's pools (the numbers of `POST /api/rewards`), withdrawn = principal and reward of the stakes
 * withdrawn in an epoch that started that day. MIST (10^-9 SUI).
 */
export function createSuiStatements(deps: { reads: SuiStatementReads }): StatementSource {
  return createDailySource({
    chain: "sui",
    token: "sui",
    baseUnit: "mist",
    decimals: 9,
    accounts: (org) => scopeAccounts(org, "sui", (a) => a.toLowerCase()),
    async month(account, m) {
      const { earnings, withdrawals } = await deps.reads.month(account, m.start, m.end);
      return {
        earned: earnings.map((e) => ({ date: e.date, amount: e.earned })),
        withdrawn: withdrawals.map((w) => ({ date: w.date, amount: w.amount })),
      };
    },
    closed: (m) => deps.reads.finishedBefore(m.end),
  });
}
