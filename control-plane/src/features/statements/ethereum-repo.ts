import type { Db } from "@stake/db/client";
import { type SQL, sql } from "drizzle-orm";
import type { Month, MonthTotals, Organisation, StatementRow, StatementSource } from "./source.ts";

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
/** Unix seconds of a day's midnight, as bigint: a numeric bound would keep the indexes from being used. */
const secondsOf = (day: unknown) => sql`extract(epoch from (${day})::timestamp)::bigint`;

export function createEthereumStatements(reads: Db): StatementSource {
  /**
   * The month's rows of the validators `which` selects, ordered by validator index, then day. A CSV batch
   * names each row's pubkey from its own list (`pubkeyOf` its index) rather than reading it with every
   * row: that 98-character string per row was a third of what a month's rows allocated.
   */
  async function read(
    which: SQL,
    m: Month,
    page: SQL,
    pubkeyOf?: (index: number) => string,
  ): Promise<StatementRow[]> {
    // The rows' keys first (materialized), then the two look-ups for those rows only: in one select list
    // they ran for every row of the month before the sort and limit (30 s for 1,000 validators). The rows
    // come back as one text (a line a row, its fields comma-separated; none holds a comma): the driver's
    // object and strings per row were promoted to the old generation as they arrived, four times the
    // bytes of one string split here (docs/benchmarks.md §6).
    const [got] = await reads.execute<{ lines: string | null }>(sql`
      with c as (select genesis_time as g, seconds_per_slot * slots_per_epoch as es from beacon_indexer_cursor limit 1),
      page as materialized (
        select d.day, mine.pubkey, d.validator_index, d.cl_reward_gwei, d.mev_reward_gwei, d.priority_fee_gwei,
               ceil((${secondsOf(sql`d.day`)} - c.g)::numeric / c.es)::int as first_epoch,
               ceil((${secondsOf(sql`d.day + 1`)} - c.g)::numeric / c.es)::int - 1 as last_epoch
        from beacon_rewards_daily d join ${which} mine on mine.validator_index = d.validator_index, c
        where d.day >= ${m.start}::date and d.day < ${m.end}::date
        order by d.validator_index, d.day ${page})
      select string_agg(concat_ws(',', p.day::text, p.validator_index, ${pubkeyOf ? sql`''` : sql`p.pubkey`},
             p.cl_reward_gwei, p.mev_reward_gwei, p.priority_fee_gwei,
             coalesce((select r.balance_gwei::text from beacon_rewards r
               where r.validator_index = p.validator_index and r.epoch between p.first_epoch and p.last_epoch
               order by r.epoch desc limit 1), ''),
             (select coalesce(sum(x.amount_gwei), 0) from beacon_transactions x
               where x.pubkey = p.pubkey and ${CL_WITHDRAWAL}
                 and x.block_timestamp >= ${secondsOf(sql`p.day`)}
                 and x.block_timestamp < ${secondsOf(sql`p.day + 1`)})), E'\n' order by p.validator_index, p.day) as lines
      from page p`);
    if (!got?.lines) return [];
    return got.lines.split("\n").map((line) => {
      const [day = "", index = "", pubkey = "", cl = "", mev = "", fees = "", end = "", withdrawn = ""] =
        line.split(",");
      const parts = { cl: BigInt(cl), fees: BigInt(fees), mev: BigInt(mev) };
      return {
        date: day,
        account: pubkeyOf ? pubkeyOf(Number(index)) : pubkey,
        earned: parts.cl + parts.fees + parts.mev,
        withdrawn: BigInt(withdrawn),
        cl: parts.cl,
        priorityFees: parts.fees,
        mev: parts.mev,
        endBalance: end === "" ? null : BigInt(end),
      };
    });
  }

  // A page is at most 100 rows: its pubkeys come with them.
  const rows = (org: Organisation, m: Month, offset: number, limit: number) =>
    read(mine(org.id), m, sql`limit ${limit} offset ${offset}`);

  /**
   * A batch is the month of a slice of the organisation's validators (primary-key probes on the daily
   * rollup), so each query reads only its own rows: paging the whole month by offset or keyset sorted
   * the month again for every batch (25 s for 4,000 validators).
   */
  async function* stream(org: Organisation, m: Month, batch: number) {
    const days = (Date.parse(m.end) - Date.parse(m.start)) / 86_400_000;
    const per = Math.max(1, Math.floor(batch / days));
    const all = await reads.execute<{ validator_index: number; pubkey: string }>(
      sql`select validator_index, pubkey from ${mine(org.id)} m order by validator_index`,
    );
    for (let i = 0; i < all.length; i += per) {
      const slice = all.slice(i, i + per);
      const which = sql`(select unnest(${`{${slice.map((v) => v.validator_index).join(",")}}`}::int[]) as validator_index,
        unnest(${`{${slice.map((v) => v.pubkey).join(",")}}`}::text[]) as pubkey)`;
      const pubkeys = new Map(slice.map((v) => [v.validator_index, v.pubkey]));
      yield await read(which, m, sql``, (i) => pubkeys.get(i) ?? "");
    }
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

  return { chain: "ethereum", token: "eth", baseUnit: "gwei", decimals: 9, rows, stream, totals, closed };
}
