import type { HyperliquidRewards } from "../hyperliquid-delegation/rewards.ts";
import { createDailySource, scopeAccounts } from "./daily-source.ts";
import type { StatementSource } from "./source.ts";

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/**
 * Hyperliquid's statement rows: one per delegator of the organisation's scope and day, read from the info
 * API through the delegation area's port (`delegatorRewards`: the day's distribution, the numbers of
 * `GET /api/v1/staking/rewards`; `delegatorHistory`: withdrawals that reached spot that day). Hyperliquid is
 * the ledger, so nothing is indexed: a delegator's whole history is one answer. wei (10^-8 HYPE).
 */
export function createHyperliquidStatements(deps: { rewards: HyperliquidRewards }): StatementSource {
  return createDailySource({
    chain: "hyperliquid",
    token: "hype",
    baseUnit: "wei",
    decimals: 8,
    accounts: (org) => scopeAccounts(org, "hyperliquid", (a) => a.toLowerCase()),
    async month(account) {
      const [rewards, history] = await Promise.all([
        deps.rewards.distributions(account),
        deps.rewards.historyOf(account),
      ]);
      return {
        earned: rewards.map((r) => ({ date: r.date, amount: BigInt(r.amountWei) })),
        withdrawn: history
          .filter((h) => h.type === "withdrawal_finalized")
          .map((h) => ({ date: dayOf(h.time), amount: BigInt(h.amountWei) })),
      };
    },
    // The last distribution of a month is paid at the next month's first midnight.
    async closed(m, now) {
      return now >= Date.parse(`${m.end}T00:00:00Z`) + 60 * 60 * 1000;
    },
  });
}
