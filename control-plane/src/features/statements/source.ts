import type { OrganisationScope } from "@stake/db/schema/accounts";

/**
 * What every statement area hands the statements service (docs/spec.md, Statements): rows of one
 * organisation's month in (account, date) order, amounts in the chain's base unit as bigint.
 */

export interface StatementRow {
  /** UTC day, YYYY-MM-DD. */
  date: string;
  /** The validator (Ethereum pubkey) or stake account (Hyperliquid delegator) the row is about. */
  account: string;
  /** What the account earned that day (Ethereum: CL + priority fees + MEV). */
  earned: bigint;
  /** What left the stake that day to the owner (the realized view tax tools ask for). */
  withdrawn: bigint;
  /** Ethereum's parts of `earned` and its end-of-day balance; null on chains without them. */
  cl: bigint | null;
  priorityFees: bigint | null;
  mev: bigint | null;
  endBalance: bigint | null;
}

export interface MonthTotals {
  rows: number;
  earned: bigint;
  withdrawn: bigint;
  cl: bigint | null;
  priorityFees: bigint | null;
  mev: bigint | null;
}

export interface Organisation {
  id: string;
  scope: OrganisationScope;
}

/** The first day of the month and of the next one (YYYY-MM-DD), the month's half-open range. */
export interface Month {
  month: string;
  start: string;
  end: string;
}

export interface StatementSource {
  chain: string;
  /** Lower-case token symbol, the key of its price series. */
  token: string;
  /** The base unit amounts are counted in, and how many of its decimals make one token. */
  baseUnit: string;
  decimals: number;
  /** One JSON page: the rows after the first `offset`, in the statement's order (account, then date). */
  rows(org: Organisation, month: Month, offset: number, limit: number): Promise<StatementRow[]>;
  /** Every row of the month in the same order, in batches of about `batch` rows (the CSV). */
  stream(org: Organisation, month: Month, batch: number): AsyncIterable<StatementRow[]>;
  totals(org: Organisation, month: Month): Promise<MonthTotals>;
  /** True once nothing of the month can change any more (finalized, or past its last distribution). */
  closed(month: Month, now: number): Promise<boolean>;
}
