import type { Db } from "@stake/db/client";
import { sql } from "drizzle-orm";

/** One day's sums of a scope (Gwei, decimal strings): rewards and Σ end-of-epoch balances. */
export interface DaySums {
  day: string;
  cl: string;
  el: string;
  balance_sum: string;
}

const SUMS = sql.raw(
  "to_char(day, 'YYYY-MM-DD') as day, sum(cl_reward_gwei)::text as cl, sum(el_reward_gwei)::text as el, sum(balance_sum_gwei)::text as balance_sum",
);

/**
 * The daily sums the rate series divides (docs/beacon-data.md, "Rates"), each over [from, to] and at most
 * one row a day: the organisation's own rollup, one validator's, and every indexed validator's (the
 * network sample), read on the reads handle.
 */
export function createRatesRepo(reads: Db) {
  return {
    organisation: (organisationId: string, from: string, to: string) =>
      reads.execute<DaySums & Record<string, unknown>>(sql`
        select ${SUMS} from beacon_rewards_org_daily
        where organisation_id = ${organisationId} and day between ${from}::date and ${to}::date
        group by day order by day`),

    validator: (validatorIndex: number, from: string, to: string) =>
      reads.execute<DaySums & Record<string, unknown>>(sql`
        select ${SUMS} from beacon_rewards_daily
        where validator_index = ${validatorIndex} and day between ${from}::date and ${to}::date
        group by day order by day`),

    /** Every validator the index follows, each once: the network rollup, a row a day. */
    network: (from: string, to: string) =>
      reads.execute<DaySums & Record<string, unknown>>(sql`
        select ${SUMS} from beacon_rewards_network_daily
        where day between ${from}::date and ${to}::date
        group by day order by day`),
  };
}
export type RatesRepo = ReturnType<typeof createRatesRepo>;
