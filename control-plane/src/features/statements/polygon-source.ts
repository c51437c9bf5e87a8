import type { Address } from "viem";
import type { PolygonStatementReads } from "../polygon-rewards/statement-reads.ts";
import { createDailySource, scopeAccounts } from "./daily-source.ts";
import type { StatementSource } from "./source.ts";

const secondsOf = (day: string) => BigInt(Date.parse(`${day}T00:00:00Z`) / 1000);

/**
 * Polygon's statement rows: one per delegator of the organisation's `polygon` scope and day with the
 * operator's ValidatorShare, through the Polygon area's port (its contract's accounting at each UTC
 * midnight): earned = the growth of its pending rewards plus what left them that day; withdrawn = the
 * rewards paid out to it that day. wei of POL (10^-18).
 */
export function createPolygonStatements(deps: { reads: PolygonStatementReads }): StatementSource {
  return createDailySource({
    chain: "polygon",
    token: "pol",
    baseUnit: "wei",
    decimals: 18,
    accounts: (org) => scopeAccounts(org, "polygon", (a) => a.toLowerCase()),
    async month(account, m) {
      const days = await deps.reads.days(account as Address, secondsOf(m.start), secondsOf(m.end));
      return {
        earned: days.map((d) => ({ date: d.date, amount: d.earned })),
        withdrawn: days.map((d) => ({ date: d.date, amount: d.withdrawn })),
      };
    },
    closed: (m) => deps.reads.settledPast(secondsOf(m.end)),
  });
}
