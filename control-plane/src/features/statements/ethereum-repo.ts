import type { Db } from "@stake/db/client";
import { sql } from "drizzle-orm";
import type { Month, MonthTotals, Organisation, Position, StatementRow, StatementSource } from "./source.ts";

/**
 * Ethereum's statement rows, read from what the beacon-data follower indexed (its tables, read-only:
 * docs/architecture.md §12): a validator's day from `beacon_rewards_daily` (the numbers of
 * `GET /api/rewards/date`), its balance at the last epoch that started that day from `beacon_rewards`,
 * and its consensus-layer withdrawals of that day from `beacon_transactions`. Gwei.
 */

/** The organisation's validators with an index (tracked: provisioned or registered). */
const mine = (organisationId: string) => sql`
  (select v.validator_index, v.pubkey from beacon_tracked_validators t
   join beacon_validators v on v.pubkey = t.pubkey
   where t.organisation_id = ${organisationId} and v.validator_index is not null)`;

const CL_WITHDRAWAL = sql`x.layer = 'CONSENSUS_LAYER' and x.type in ('PARTIAL_EXIT', 'FULL_WITHDRAWAL')`;
const secondsOf = (day: unknown) => sql`extract(epoch from (${day})::timestamp)`;

export function createEthereumStatements(reads: Db): StatementSource {
  const big = (v: string | null) => (v === null ? null : BigInt(v));

  async function rows(org: Organisation, m: Month, from: Position, limit: number): Promise<StatementRow[]> {
    const resume =
      "after" in from
        ? sql`and (d.day, mine.pubkey) > (${from.after.date}::date, ${from.after.account})`
        : sql``;
    const offset = "offset" in from ? from.offset : 0;
    const got = await reads.execute<{
      day: string;
      pubkey: string;
      cl: string;
      mev: string;
      fees: string;
      end_balance: string | null;
      withdrawn: string;
    }>(sql`
      with c as (select genesis_time as g, seconds_per_slot * slots_per_epoch as es from beacon_indexer_cursor limit 1)
      select d.day::text as day, mine.pubkey, d.cl_reward_gwei::text as cl, d.mev_reward_gwei::text as mev,
             d.priority_fee_gwei::text as fees,
             (select r.balance_gwei::text from beacon_rewards r, c
               where r.validator_index = d.validator_index
                 and r.epoch >= ceil((${secondsOf(sql`d.day`)} - c.g) / c.es)
                 and r.epoch <= ceil((${secondsOf(sql`d.day + 1`)} - c.g) / c.es) - 1
               order by r.epoch desc limit 1) as end_balance,
             (select coalesce(sum(x.amount_gwei), 0)::text from beacon_transactions x
               where x.pubkey = mine.pubkey and ${CL_WITHDRAWAL}
                 and x.block_timestamp >= ${secondsOf(sql`d.day`)}
                 and x.block_timestamp < ${secondsOf(sql`d.day + 1`)}) as withdrawn
      from beacon_rewards_daily d join ${mine(org.id)} mine on mine.validator_index = d.validator_index
      where d.day >= ${m.start}::date and d.day < ${m.end}::date ${resume}
      order by d.day, mine.pubkey limit ${limit} offset ${offset}`);
    return got.map((r) => {
      const cl = BigInt(r.cl);
      const fees = BigInt(r.fees);
      const mev = BigInt(r.mev);
      return {
        date: r.day,
        account: r.pubkey,
        earned: cl + fees + mev,
        withdrawn: BigInt(r.withdrawn),
        cl,
        priorityFees: fees,
        mev,
        endBalance: big(r.end_balance),
      };
    });
  }

  async function totals(org: Organisation, m: Month): Promise<MonthTotals> {
    const [t] = await reads.execute<{
      rows: number;
      cl: string;
      fees: string;
      mev: string;
      withdrawn: string;
    }>(sql`
      select (select count(*)::int from beacon_rewards_daily d join ${mine(org.id)} mine using (validator_index)
               where d.day >= ${m.start}::date and d.day < ${m.end}::date) as rows,
             s.cl, s.fees, s.mev,
             (select coalesce(sum(x.amount_gwei), 0)::text from beacon_transactions x
               join beacon_rewards_daily d on d.day = (to_timestamp(x.block_timestamp) at time zone 'UTC')::date
               join ${mine(org.id)} mine on mine.pubkey = x.pubkey and mine.validator_index = d.validator_index
               where ${CL_WITHDRAWAL} and x.block_timestamp >= ${secondsOf(sql`${m.start}::date`)}
                 and x.block_timestamp < ${secondsOf(sql`${m.end}::date`)}) as withdrawn
      from (select coalesce(sum(d.cl_reward_gwei), 0)::text as cl, coalesce(sum(d.priority_fee_gwei), 0)::text as fees,
                   coalesce(sum(d.mev_reward_gwei), 0)::text as mev
            from beacon_rewards_daily d join ${mine(org.id)} mine using (validator_index)
            where d.day >= ${m.start}::date and d.day < ${m.end}::date) s`);
    if (!t) throw new Error("totals query returned no row");
    const [cl, priorityFees, mev] = [BigInt(t.cl), BigInt(t.fees), BigInt(t.mev)];
    return {
      rows: t.rows,
      earned: cl + priorityFees + mev,
      withdrawn: BigInt(t.withdrawn),
      cl,
      priorityFees,
      mev,
    };
  }

  /** Closed once the finalized checkpoint is past the month: no epoch that started in it can change. */
  async function closed(m: Month): Promise<boolean> {
    const [c] = await reads.execute<{ done: boolean }>(sql`
      select genesis_time + finalized_epoch::bigint * seconds_per_slot * slots_per_epoch
             >= ${secondsOf(sql`${m.end}::date`)} as done
      from beacon_indexer_cursor limit 1`);
    return c?.done === true;
  }

  return { chain: "ethereum", token: "eth", baseUnit: "gwei", decimals: 9, rows, totals, closed };
}
