import type { Month, MonthTotals, Organisation, StatementRow, StatementSource } from "./source.ts";

/** What an account earned or had withdrawn on one UTC day, in the chain's base unit. */
export interface DayAmount {
  date: string;
  amount: bigint;
}

/**
 * A chain whose statement is read per account from the area's own reward reads (a node, an API or the
 * area's indexed rows), not from a table the statements can page in SQL: the rows of one account are a
 * month at most (31 days × its amounts), read one account at a time, so a month streams account by
 * account and no more than one account's month is held.
 */
export interface AccountDays {
  chain: string;
  token: string;
  baseUnit: string;
  decimals: number;
  /** The accounts of the organisation's scope on this chain, sorted: the statement's row order. */
  accounts(org: Organisation): Promise<string[]> | string[];
  /** One account's month: amounts earned and withdrawn, several per day allowed. */
  month(account: string, m: Month): Promise<{ earned: DayAmount[]; withdrawn: DayAmount[] }>;
  closed(m: Month, now: number): Promise<boolean>;
}

/** One row per (account, day) with anything earned or withdrawn, by date. */
async function accountRows(c: AccountDays, account: string, m: Month): Promise<StatementRow[]> {
  const { earned, withdrawn } = await c.month(account, m);
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
  const inMonth = (d: DayAmount) => d.date >= m.start && d.date < m.end;
  for (const e of earned.filter(inMonth)) row(e.date).earned += e.amount;
  for (const w of withdrawn.filter(inMonth)) row(w.date).withdrawn += w.amount;
  return [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

/**
 * A StatementSource over per-account reads: the CSV yields one account's rows at a time; a JSON page and
 * its totals share one walk of the accounts (the same organisation object within one request), so a page
 * asks each node once.
 */
export function createDailySource(c: AccountDays): StatementSource {
  async function* each(org: Organisation, m: Month) {
    for (const account of await c.accounts(org)) yield await accountRows(c, account, m);
  }
  const walks = new WeakMap<Organisation, Map<string, Promise<StatementRow[][]>>>();
  function walk(org: Organisation, m: Month) {
    const byMonth = walks.get(org) ?? new Map<string, Promise<StatementRow[][]>>();
    walks.set(org, byMonth);
    let got = byMonth.get(m.month);
    if (!got) {
      got = (async () => {
        const all: StatementRow[][] = [];
        for await (const rows of each(org, m)) all.push(rows);
        return all;
      })();
      byMonth.set(m.month, got);
      // A failed read is not kept: the next request reads again.
      got.catch(() => byMonth.delete(m.month));
    }
    return got;
  }
  return {
    chain: c.chain,
    token: c.token,
    baseUnit: c.baseUnit,
    decimals: c.decimals,
    async rows(org, m, offset, limit) {
      return (await walk(org, m)).flat().slice(offset, offset + limit);
    },
    stream: (org, m) => each(org, m),
    async totals(org, m): Promise<MonthTotals> {
      const t: MonthTotals = { rows: 0, earned: 0n, withdrawn: 0n, cl: null, priorityFees: null, mev: null };
      for (const rows of await walk(org, m)) {
        t.rows += rows.length;
        for (const r of rows) {
          t.earned += r.earned;
          t.withdrawn += r.withdrawn;
        }
      }
      return t;
    },
    closed: (m, now) => c.closed(m, now),
  };
}

/** The addresses a scope lists for `chain`, de-duplicated and sorted (none when the list is empty). */
export function scopeAccounts(org: Organisation, chain: string, normalise = (a: string) => a): string[] {
  return [...new Set((org.scope[chain]?.delegator_addresses ?? []).map(normalise))].sort();
}
