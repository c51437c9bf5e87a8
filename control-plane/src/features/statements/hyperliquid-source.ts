import type { HyperliquidRewards } from "../hyperliquid-delegation/rewards.ts";
import type { Month, MonthTotals, Organisation, StatementRow, StatementSource } from "./source.ts";

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/**
 * Hyperliquid's statement rows: one per delegator of the organisation's scope and day, read from the info
 * API through the delegation area's port (`delegatorRewards`: the day's distribution, the numbers of
 * `GET /api/v1/staking/rewards`; `delegatorHistory`: withdrawals that reached spot that day). Hyperliquid is
 * the ledger, so a month is read whole; it is the scope's delegators × at most 31 days. wei (10^-8 HYPE).
 */
export function createHyperliquidStatements(deps: { rewards: HyperliquidRewards }): StatementSource {
  const delegators = (org: Organisation) =>
    [...new Set((org.scope.hyperliquid?.delegator_addresses ?? []).map((a) => a.toLowerCase()))].sort();

  async function month(org: Organisation, m: Month): Promise<StatementRow[]> {
    const out: StatementRow[] = [];
    for (const account of delegators(org)) {
      const byDay = new Map<string, StatementRow>();
      const row = (date: string) => {
        let r = byDay.get(date);
        if (!r) {
          r = {
            date,
            account,
            earned: 0n,
            withdrawn: 0n,
            cl: null,
            priorityFees: null,
            mev: null,
            endBalance: null,
          };
          byDay.set(date, r);
        }
        return r;
      };
      const inMonth = (date: string) => date >= m.start && date < m.end;
      const [rewards, history] = await Promise.all([
        deps.rewards.distributions(account),
        deps.rewards.historyOf(account),
      ]);
      for (const r of rewards) if (inMonth(r.date)) row(r.date).earned += BigInt(r.amountWei);
      for (const h of history) {
        const date = dayOf(h.time);
        if (h.type === "withdrawal_finalized" && inMonth(date)) row(date).withdrawn += BigInt(h.amountWei);
      }
      out.push(...byDay.values());
    }
    return out.sort((a, b) => (a.account === b.account ? cmp(a.date, b.date) : cmp(a.account, b.account)));
  }

  return {
    chain: "hyperliquid",
    token: "hype",
    baseUnit: "wei",
    decimals: 8,
    async rows(org, m, offset, limit) {
      return (await month(org, m)).slice(offset, offset + limit);
    },
    async *stream(org, m) {
      yield await month(org, m);
    },
    async totals(org, m): Promise<MonthTotals> {
      const all = await month(org, m);
      return {
        rows: all.length,
        earned: all.reduce((s, r) => s + r.earned, 0n),
        withdrawn: all.reduce((s, r) => s + r.withdrawn, 0n),
        cl: null,
        priorityFees: null,
        mev: null,
      };
    },
    // The last distribution of a month is paid at the next month's first midnight.
    async closed(m, now) {
      return now >= Date.parse(`${m.end}T00:00:00Z`) + 60 * 60 * 1000;
    },
  };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
