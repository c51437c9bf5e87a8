import type { Db, DbOrTx } from "@stake/db/client";
import { beaconIndexerCursor, beaconTrackedValidators } from "@stake/db/schema/beacon-data";
import { eq, type SQL, sql } from "drizzle-orm";
import { partArrays, rollupSums, rowParts } from "./cl-breakdown.ts";

/** The organisation's pubkeys: provisioned here or registered (the only validators it ever sees). */
const mine = (organisationId: string) =>
  sql`(select pubkey from beacon_tracked_validators where organisation_id = ${organisationId})`;

/**
 * The organisation's rows of `beacon_validators`, two ways (bench, 10,000 validators). `probe`: one
 * primary-key lookup per pubkey, 0.6 ms for an organisation of 100 where the planner's own join hashed the
 * whole table (2–5 ms). `scan`: one pass over the table against a hash of the organisation's pubkeys: for all
 * 10,000 half the time of the join (26–35 against 63–70 ms at load 4.8), where probing 10,000 keys is
 * slower still.
 */
const myValidators = {
  probe: (organisationId: string) =>
    sql`(select * from beacon_validators where pubkey = any(array${mine(organisationId)}))`,
  scan: (organisationId: string) =>
    sql`(select * from beacon_validators where pubkey in ${mine(organisationId)})`,
};

/** A list of validator indices as one `int[]` parameter. */
const indexArray = (indices: number[]) => sql`${`{${indices.join(",")}}`}::int[]`;

/** Σ rewards of the organisation's validators over [epochs] and [days] (days from the daily rollup). */
export interface Totals {
  cl: bigint;
  el: bigint;
  /** The two parts of `el`: builders' payments and priority fees. */
  mev: bigint;
  fees: bigint;
  /** The CL reward's parts summed, by rollup column (cl-breakdown.ts), decimal strings. */
  breakdown: Record<string, string | null>;
}
export const NO_TOTALS: Totals = { cl: 0n, el: 0n, mev: 0n, fees: 0n, breakdown: {} };

/** The reward columns' sums, as `cl`, `el`, `mev`, `fees`. */
const SUMS = sql.raw(
  "sum(cl_reward_gwei) as cl, sum(el_reward_gwei) as el, sum(mev_reward_gwei) as mev, sum(priority_fee_gwei) as fees",
);

const arr = (xs: string[]) =>
  sql`array[${sql.join(
    xs.map((x) => sql`${x}`),
    sql`, `,
  )}]::text[]`;

/**
 * A validator's history as the organisation sees it (docs/spec.md "Validator lifecycle status"): what the
 * chain showed everyone, and CREATED and the exit steps only if this organisation (`v`) provisioned it and
 * caused them. In lifecycle order, which is the order of cause; a step's time is at least its
 * predecessor's, so no clock (a node's block times, ours) makes it run backwards.
 */
const ownHistory = sql`
  select status, max(min(time)) over (order by status) as time
  from (select status, time from beacon_status_history where pubkey = m.pubkey
        union all select 'CREATED', v.created_at
        union all select 'EXIT_REQUESTED', v.exit_requested_at
        union all select 'EXIT_SENT', v.exit_sent_at) s
  where time is not null group by status`;

/**
 * `reads` serves the data endpoints' reads (a read replica when DATABASE_REPLICA_URLS is set, so a page may
 * lag the primary by the replication delay); registration and its checks stay on the primary `db`.
 */
export function createBeaconDataRepo(db: Db, reads: Db = db) {
  const first =
    (h: Db) =>
    async <T>(q: SQL) =>
      (await h.execute<T & Record<string, unknown>>(q))[0] as T | undefined;
  const one = first(db);
  const readOne = first(reads);
  return {
    async cursor() {
      const [row] = await reads
        .select()
        .from(beaconIndexerCursor)
        .where(eq(beaconIndexerCursor.id, "beacon"));
      return row ?? null;
    },

    /**
     * Adds the registrations. The organisation's rollup gets a pubkey's days already indexed from the
     * worker (indexer-repo.ts `rollUpRegistrations`, under the indexer's lock), never from the API.
     */
    async register(organisationId: string, pubkeys: string[], tx: DbOrTx = db) {
      await tx
        .insert(beaconTrackedValidators)
        .values(
          pubkeys.map((pubkey) => ({
            organisationId,
            pubkey,
            source: "registered" as const,
            inOrgRollup: false,
          })),
        )
        .onConflictDoNothing();
    },

    /** Of `pubkeys`, those the organisation has not registered yet. */
    async notRegistered(organisationId: string, pubkeys: string[]): Promise<string[]> {
      const rows = await db.execute<{ pubkey: string }>(sql`
        select pubkey from beacon_tracked_validators
        where organisation_id = ${organisationId} and source = 'registered' and pubkey = any(${arr(pubkeys)})`);
      const known = new Set(rows.map((r) => r.pubkey));
      return pubkeys.filter((p) => !known.has(p));
    },

    async registeredCount(organisationId: string): Promise<number> {
      const row = await one<{ n: number }>(sql`
        select count(*)::int as n from beacon_tracked_validators
        where organisation_id = ${organisationId} and source = 'registered'`);
      return row?.n ?? 0;
    },

    /** Whether the organisation's rollup counts all of `pubkeys` yet (false while a registration waits). */
    async rolledUp(organisationId: string, pubkeys: string[]): Promise<boolean> {
      const row = await one<{ n: number }>(sql`
        select count(*)::int as n from beacon_tracked_validators
        where organisation_id = ${organisationId} and pubkey = any(${arr(pubkeys)}) and not in_org_rollup`);
      return row?.n === 0;
    },

    /** A page of the organisation's validators with their state and history (filters are ANDed). */
    async listValidators(
      organisationId: string,
      f: { pubkeys?: string[] | undefined; withdrawalAddresses?: string[] | undefined },
      page: { limit: number; offset: number },
    ) {
      const where = sql.join(
        [
          sql`true`,
          ...(f.pubkeys ? [sql`m.pubkey = any(${arr(f.pubkeys)})`] : []),
          ...(f.withdrawalAddresses
            ? [
                sql`'0x' || right(coalesce(b.withdrawal_credentials, v.withdrawal_credentials), 40) = any(${arr(f.withdrawalAddresses)})`,
              ]
            : []),
        ],
        sql` and `,
      );
      // `v`: the pubkey's provisioned row, only where this organisation provisioned it: another's fee
      // recipient, credentials before any deposit and creation time are that organisation's business.
      const base = sql`from ${mine(organisationId)} m
        left join beacon_validators b on b.pubkey = m.pubkey
        left join beacon_tracked_validators v on v.pubkey = m.pubkey and v.source = 'provisioned'
          and v.organisation_id = ${organisationId}
        where ${where}`;
      const rows = await reads.execute<{
        pubkey: string;
        validator_index: number | null;
        beacon_status: string | null;
        withdrawal_credentials: string | null;
        fee_recipient: string | null;
        balance_gwei: string | null;
        created_at: Date | null;
        history: { status: string; time: string }[] | null;
        beacon_history: { status: string; epoch: number | null }[] | null;
      }>(sql`
        select m.pubkey, b.validator_index, b.beacon_status,
               coalesce(b.withdrawal_credentials, v.withdrawal_credentials) as withdrawal_credentials,
               coalesce(v.fee_recipient, b.fee_recipient) as fee_recipient,
               b.balance_gwei::text as balance_gwei, v.created_at,
               (select json_agg(json_build_object('status', h.status, 'time', h.time) order by h.status)
                  from (${ownHistory}) h) as history,
               (select json_agg(json_build_object('status', e.status, 'epoch', e.epoch) order by e.status)
                  from beacon_status_epochs e where e.pubkey = m.pubkey) as beacon_history
        ${base} order by b.validator_index nulls last, m.pubkey limit ${page.limit} offset ${page.offset}`);
      const total = await readOne<{ n: number }>(sql`select count(*)::int as n ${base}`);
      return { rows, total: total?.n ?? 0 };
    },

    /** Validator indices of the organisation (those the chain has assigned one), with pubkeys. */
    async indices(organisationId: string) {
      return reads.execute<{ pubkey: string; validator_index: number }>(sql`
        select b.pubkey, b.validator_index from ${myValidators.probe(organisationId)} b
        where b.validator_index is not null order by 2`);
    },

    /**
     * Rewards in [from, to], one row per epoch with its validators as parallel arrays (ascending index):
     * a tenth of the rows to decode, which for 100 validators × 100 epochs takes 9 ms instead of 13 (bench).
     */
    async epochRewards(indices: number[], from: number, to: number) {
      return reads.execute<{
        epoch: number;
        indices: number[];
        cl: string[];
        el: string[];
        mev: string[];
        fees: string[];
        /** Each part's column: its values in the same order, null where a row has no breakdown. */
        [part: string]: unknown;
      }>(sql`
        select epoch, array_agg(validator_index order by validator_index) as indices,
               array_agg(cl_reward_gwei::text order by validator_index) as cl,
               array_agg(el_reward_gwei::text order by validator_index) as el,
               array_agg(mev_reward_gwei::text order by validator_index) as mev,
               array_agg(priority_fee_gwei::text order by validator_index) as fees, ${partArrays}
        from beacon_rewards where validator_index = any(${indexArray(indices)}) and epoch between ${from} and ${to}
        group by epoch order by epoch`);
    },

    /** Σ over epoch ranges (a range's edges) and whole days [dayFrom, dayTo] (the daily rollup), in one statement. */
    async totals(
      indices: number[],
      parts: { epochs?: [number, number][]; days?: [string, string] },
    ): Promise<Totals> {
      const idx = indexArray(indices);
      const sums = [
        ...(parts.epochs ?? []).map(
          ([a, b]) => sql`select ${SUMS}, ${rowParts("", "sum", true)} from beacon_rewards
            where validator_index = any(${idx}) and epoch between ${a} and ${b}`,
        ),
        ...(parts.days
          ? [
              sql`select ${SUMS}, ${rollupSums("", "sum", true)} from beacon_rewards_daily
                where validator_index = any(${idx}) and day between ${parts.days[0]} and ${parts.days[1]}`,
            ]
          : []),
      ];
      if (!sums.length) return NO_TOTALS;
      const r = await readOne<Record<string, string | null>>(sql`
        select sum(cl)::text as cl, sum(el)::text as el, sum(mev)::text as mev, sum(fees)::text as fees,
               ${rollupSums("s", "sum", true, "::text")}
        from (${sql.join(sums, sql` union all `)}) s`);
      return {
        cl: BigInt(r?.cl ?? 0),
        el: BigInt(r?.el ?? 0),
        mev: BigInt(r?.mev ?? 0),
        fees: BigInt(r?.fees ?? 0),
        breakdown: r ?? {},
      };
    },

    /** Per bucket of `days` days from `start` to `end`, per validator sums from the daily rollup. */
    async dayBuckets(indices: number[], start: string, end: string, days: number) {
      return reads.execute<{
        bucket: number;
        validator_index: number;
        cl: string;
        el: string;
        mev: string;
        fees: string;
        /** The CL reward's parts summed, by rollup column. */
        [part: string]: unknown;
      }>(sql`
        select ((day - ${start}::date) / ${days})::int as bucket, validator_index,
               sum(cl_reward_gwei)::text as cl, sum(el_reward_gwei)::text as el,
               sum(mev_reward_gwei)::text as mev, sum(priority_fee_gwei)::text as fees,
               ${rollupSums("", "sum", true, "::text")}
        from beacon_rewards_daily
        where validator_index = any(${indexArray(indices)}) and day between ${start} and ${end}
        group by 1, 2 order by 1, 2`);
    },

    /**
     * Rewards and Σ end-of-epoch balances (stake × epochs) of the organisation per window ending `day`
     * (its own rollup: at most a year of rows), and its active stake: one statement.
     */
    async overview(organisationId: string, lastDay: string | null) {
      const windows = (n: number) => sql`
        coalesce(sum(d.cl_reward_gwei + d.el_reward_gwei) filter (where d.day > ${lastDay}::date - ${n}::int), 0)::text as r${sql.raw(String(n))},
        coalesce(sum(d.balance_sum_gwei) filter (where d.day > ${lastDay}::date - ${n}::int), 0)::text as s${sql.raw(String(n))}`;
      const row = await readOne<Record<string, string>>(sql`
        select coalesce(sum(d.cl_reward_gwei), 0)::text as cl, coalesce(sum(d.el_reward_gwei), 0)::text as el,
               coalesce(sum(d.mev_reward_gwei), 0)::text as mev, coalesce(sum(d.priority_fee_gwei), 0)::text as fees,
               ${rollupSums("d", "sum", true, "::text")},
               ${windows(7)}, ${windows(30)}, ${windows(365)},
               (select coalesce(sum(b.balance_gwei), 0) from ${myValidators.scan(organisationId)} b
                where b.beacon_status like 'active%')::text as stake
        from beacon_rewards_org_daily d where d.organisation_id = ${organisationId}`);
      return { row: row ?? {}, activeStake: BigInt(row?.stake ?? 0) };
    },

    /** Whether some of the organisation's registered pubkeys are not yet counted by the worker's roll-up. */
    async rollUpPending(organisationId: string): Promise<boolean> {
      const row = await one<{ pending: boolean }>(sql`
        select exists (select 1 from beacon_tracked_validators
                       where organisation_id = ${organisationId} and not in_org_rollup) as pending`);
      return row?.pending ?? false;
    },

    async transactions(
      organisationId: string,
      pubkeys: string[] | undefined,
      page: { limit: number; offset: number },
    ) {
      const where = sql`t.pubkey in ${mine(organisationId)}${pubkeys ? sql` and t.pubkey = any(${arr(pubkeys)})` : sql``}`;
      const rows = await reads.execute<Record<string, unknown>>(sql`
        select t.* from beacon_transactions t where ${where}
        order by t.block_number desc, t.uid desc limit ${page.limit} offset ${page.offset}`);
      const total = await readOne<{ n: number }>(
        sql`select count(*)::int as n from beacon_transactions t where ${where}`,
      );
      return { rows, total: total?.n ?? 0 };
    },
  };
}

export type BeaconDataRepo = ReturnType<typeof createBeaconDataRepo>;
