import type { Db, DbOrTx } from "@stake/db/client";
import {
  archivedDebitListings,
  gatewayUsageDaily,
  ledgerEntries,
  parties,
  reservations,
  USAGE_LATENCY_BOUNDS_MS,
} from "@stake/db/schema/gateway";
import { and, asc, eq, gt, lt, type SQL, sql } from "drizzle-orm";
import { OPEN_STATUSES, RANK, type Status } from "./types.ts";

/** Postgres side of settlement, reaping, rebuild and funding: the ledger of record. */

export type ReservationRow = typeof reservations.$inferSelect;

const rankSql = (column: SQL) =>
  sql`case ${column} ${sql.raw(
    Object.entries(RANK)
      .map(([status, rank]) => `when '${status}' then ${rank}`)
      .join(" "),
  )} end`;

/**
 * A Postgres array literal of strings, sent as one parameter: drizzle's postgres.js driver passes
 * parameters as text, and one array per column keeps a multi-thousand-row statement at a few parameters.
 */
export function pgArray(values: readonly (string | null)[]): string {
  let out = "{";
  for (let i = 0; i < values.length; i++) {
    if (i) out += ",";
    const v = values[i];
    out += v == null ? "NULL" : `"${v.replace(/[\\"]/g, "\\$&")}"`;
  }
  return `${out}}`;
}

/** Statuses as SQL literals, so the planner can match the partial index on open reservations. */
const statusIn = (statuses: readonly Status[]) =>
  sql.raw(`${reservations.status.name} in (${statuses.map((s) => `'${s}'`).join(", ")})`);

/** The columns of a reservation the usage roll-up reads from a statement's `returning`. */
const ROLLED_UP = sql.raw(
  "party_id, key_id, provider_key, created_at, status, cost, http_status, upstream_ms",
);

/** `count(*)` of the moved rows in each latency bucket (USAGE_LATENCY_BOUNDS_MS, then the overflow). */
const latencyBuckets = sql.raw(
  `array[${[...USAGE_LATENCY_BOUNDS_MS, null]
    .map((upper, i) => {
      const lower = i ? USAGE_LATENCY_BOUNDS_MS[i - 1] : null;
      const conds = [
        lower === null ? null : `upstream_ms > ${lower}`,
        upper === null ? null : `upstream_ms <= ${upper}`,
      ];
      return `count(*) filter (where upstream_ms is not null and ${conds.filter(Boolean).join(" and ")})`;
    })
    .join(", ")}]::bigint[]`,
);

/**
 * Adds the reservations a statement moved to a final status (`settled`, `failed`) to the daily usage
 * roll-up, in that same statement: `moved` is a CTE returning ROLLED_UP. A reservation reaches a final
 * status once (a settled one never moves; Redis settles only a `registered` record and fails only an
 * unsettled one, so no reservation is both), and a statement returns only the rows it moved, so each is
 * counted once however often its events are replayed, and `charged` is the sum the debits took.
 */
function addToUsage(moved: SQL) {
  return sql`
    insert into ${gatewayUsageDaily} (party_id, day, key_id, provider_key, requests, settled, charged, failed, released,
      status_2xx, status_3xx, status_4xx, status_5xx, status_none, latency_buckets)
    select party_id, (created_at at time zone 'UTC')::date, coalesce(key_id, ''), provider_key, count(*),
      count(*) filter (where status = 'settled'), coalesce(sum(cost) filter (where status = 'settled'), 0),
      count(*) filter (where status = 'failed'), coalesce(sum(cost) filter (where status = 'failed'), 0),
      count(*) filter (where http_status between 200 and 299), count(*) filter (where http_status between 300 and 399),
      count(*) filter (where http_status between 400 and 499), count(*) filter (where http_status between 500 and 599),
      count(*) filter (where http_status is null or http_status not between 200 and 599),
      ${latencyBuckets}
    from ${moved} where status in ('settled', 'failed')
    group by 1, 2, 3, 4
    on conflict (party_id, day, key_id, provider_key) do update set
      requests = gateway_usage_daily.requests + excluded.requests,
      settled = gateway_usage_daily.settled + excluded.settled,
      charged = gateway_usage_daily.charged + excluded.charged,
      failed = gateway_usage_daily.failed + excluded.failed,
      released = gateway_usage_daily.released + excluded.released,
      status_2xx = gateway_usage_daily.status_2xx + excluded.status_2xx,
      status_3xx = gateway_usage_daily.status_3xx + excluded.status_3xx,
      status_4xx = gateway_usage_daily.status_4xx + excluded.status_4xx,
      status_5xx = gateway_usage_daily.status_5xx + excluded.status_5xx,
      status_none = gateway_usage_daily.status_none + excluded.status_none,
      latency_buckets = (select array_agg(a + b order by n)
        from unnest(gateway_usage_daily.latency_buckets, excluded.latency_buckets) with ordinality as l(a, b, n))`;
}

/**
 * Upserts by id, one statement per call (columns as arrays); a status only ever moves forward (see RANK).
 * Rows that arrive `settled` (settle.lua has just debited them) list `debitId`, and that one debit entry
 * is written in the same statement for the sum of the rows the statement actually moved: a replayed
 * event finds its row already settled and is charged no second time. With a debit, run it in the
 * charge's unit of work (debit.ts `commitDebit`).
 */
export async function upsertReservations(
  db: DbOrTx,
  partyId: string,
  rows: ReservationRow[],
  debitId: string | null = null,
) {
  if (!rows.length) return;
  const column = (pick: (r: ReservationRow) => string | null) => pgArray(rows.map(pick));
  const text = (v: number | null) => (v === null ? null : String(v));
  await db.execute(sql`
    with moved as (
      insert into ${reservations}
        (id, party_id, provider_key, idempotency_key, cost_in_usd, cost, status, debit_id, key_id, http_status,
          upstream_ms, path, created_at, updated_at)
      select * from unnest(
        ${column((r) => r.id)}::text[], ${column((r) => r.partyId)}::text[],
        ${column((r) => r.providerKey)}::text[], ${column((r) => r.idempotencyKey)}::text[],
        ${column((r) => r.costInUsd)}::numeric[], ${column((r) => r.cost)}::numeric[],
        ${column((r) => r.status)}::reservation_status[], ${column((r) => r.debitId)}::text[],
        ${column((r) => r.keyId)}::text[], ${column((r) => text(r.httpStatus))}::smallint[],
        ${column((r) => text(r.upstreamMs))}::integer[], ${column((r) => r.path)}::text[],
        ${column((r) => r.createdAt.toISOString())}::timestamptz[],
        ${column((r) => r.updatedAt.toISOString())}::timestamptz[])
      on conflict (id, created_at) do update
        set status = excluded.status, updated_at = excluded.updated_at, debit_id = excluded.debit_id,
          key_id = coalesce(excluded.key_id, ${reservations.keyId}),
          http_status = coalesce(excluded.http_status, ${reservations.httpStatus}),
          upstream_ms = coalesce(excluded.upstream_ms, ${reservations.upstreamMs}),
          path = coalesce(excluded.path, ${reservations.path})
        where ${rankSql(sql`excluded.status`)} > ${rankSql(sql`${reservations.status}`)}
      returning debit_id, ${ROLLED_UP}
    )
    ${debitEntry(sql`moved`, partyId, debitId)}
    ${addToUsage(sql`moved`)}`);
}

/** A page of a party's registered or queued reservations after the (createdAt, id) cursor, oldest first. */
export function chargeable(db: Db, partyId: string, after: { at: Date; id: string }, limit: number) {
  return db
    .select({
      id: reservations.id,
      providerKey: reservations.providerKey,
      idempotencyKey: reservations.idempotencyKey,
      cost: reservations.cost,
      createdAt: reservations.createdAt,
    })
    .from(reservations)
    .where(
      and(
        eq(reservations.partyId, partyId),
        statusIn(["registered", "queued"]),
        sql`(${reservations.createdAt}, ${reservations.id}) > (${after.at.toISOString()}::timestamptz, ${after.id})`,
      ),
    )
    .orderBy(asc(reservations.createdAt), asc(reservations.id))
    .limit(limit);
}

/**
 * The debit entry of the rows a statement moved (`moved`, a CTE returning `debit_id` and `cost`): one
 * entry for the sum of those listing `debitId` (its id is also its ref), written applied since Redis has
 * already debited; none for a batch of free requests. Every debit of the ledger is written by this one
 * fragment, from debit.ts's unit of work.
 */
function debitEntry(moved: SQL, partyId: string, debitId: string | null) {
  return sql`, debit as (
      insert into ${ledgerEntries} (id, party_id, kind, amount, external_ref, applied_at)
      select ${debitId}, ${partyId}, 'debit', sum(cost), ${debitId}, now() from ${moved}
      where debit_id = ${debitId} having sum(cost) > 0
    )`;
}

/**
 * Records the reservations whose Redis settle step is done, in one statement: each moves to `settled`
 * and lists the debit entry `debitId` that charges the batch (`debitEntry`). A reservation already
 * settled in Postgres is skipped (the status guard), so re-running after a crash never charges twice.
 * Runs in the charge's unit of work (debit.ts `commitDebit`).
 */
export async function debitSettled(
  tx: DbOrTx,
  { partyId, ids, takenFrom }: { partyId: string; ids: string[]; takenFrom: Date },
  settledAt: Date,
  debitId: string,
) {
  await tx.execute(sql`
    with charged as (
      update ${reservations}
      set status = 'settled', updated_at = ${settledAt.toISOString()}::timestamptz,
        debit_id = case when cost > 0 then ${debitId} end
      where id = any(${pgArray(ids)}::text[]) and party_id = ${partyId} and ${statusIn(["registered", "queued"])}
        -- The batch's oldest reservation bounds the months read (reservations are partitioned by month).
        and created_at >= ${takenFrom.toISOString()}::timestamptz
      returning debit_id, ${ROLLED_UP}
    )
    ${debitEntry(sql`charged`, partyId, debitId)}
    ${addToUsage(sql`charged`)}`);
}

/**
 * Whether the party's balance of record (credits − debits of the ledger) just crossed below the threshold
 * the user set: `low_balance_notified` flips only on a crossing, so this answers a crossing downwards once;
 * a balance back at or above the threshold (after funding, seen by the next settlement) re-arms it. Null
 * when there is nothing to tell; the caller tells it (debit.ts) in the debit's transaction.
 */
export async function crossLowBalance(tx: DbOrTx, partyId: string) {
  const rows = await tx.execute<{ user_id: string; balance: string; threshold: string; low: boolean }>(sql`
    with bal as (
      select coalesce(sum(case when kind = 'credit' then amount else -amount end), 0) as balance
      from ${ledgerEntries} where party_id = ${partyId}
    )
    update ${parties} p set low_balance_notified = (bal.balance < p.low_balance_threshold)
    from bal
    where p.id = ${partyId} and p.low_balance_threshold is not null
      and (bal.balance < p.low_balance_threshold) <> p.low_balance_notified
    returning p.user_id, bal.balance::text, p.low_balance_threshold::text as threshold,
      (bal.balance < p.low_balance_threshold) as low`);
  const row = rows[0];
  if (!row?.low) return null;
  return { userId: row.user_id, balance: BigInt(row.balance), threshold: BigInt(row.threshold) };
}

/** A party's reservations still in flight that were taken before `before`, oldest first. */
export function staleInFlight(db: Db, partyId: string, before: Date, limit: number) {
  return db
    .select({
      id: reservations.id,
      providerKey: reservations.providerKey,
      idempotencyKey: reservations.idempotencyKey,
    })
    .from(reservations)
    .where(
      and(
        eq(reservations.partyId, partyId),
        statusIn(["request_in_flight"]),
        lt(reservations.createdAt, before),
      ),
    )
    .orderBy(asc(reservations.createdAt))
    .limit(limit);
}

/**
 * Parties holding a reservation still in flight that was taken before `before`: the reaper's work list.
 * Reads the partial index of open reservations only, so its cost follows the backlog, not the history.
 */
export async function partiesWithStaleInFlight(db: Db, before: Date, limit: number): Promise<string[]> {
  const rows = await db
    .selectDistinct({ partyId: reservations.partyId })
    .from(reservations)
    .where(and(statusIn(["request_in_flight"]), lt(reservations.createdAt, before)))
    .limit(limit);
  return rows.map((r) => r.partyId);
}

/** A page of party ids after `after`, in id order. */
export async function partyIdsAfter(db: Db, after: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: parties.id })
    .from(parties)
    .where(gt(parties.id, after))
    .orderBy(asc(parties.id))
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Every party id, in id order. */
export async function allPartyIds(db: Db): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const page = await partyIdsAfter(db, ids.at(-1) ?? "", 10_000);
    if (!page.length) return ids;
    ids.push(...page);
  }
}

/** Whether the party exists. */
export async function partyExists(db: Db, partyId: string): Promise<boolean> {
  const [row] = await db.select({ id: parties.id }).from(parties).where(eq(parties.id, partyId));
  return row !== undefined;
}

/**
 * What the party's Redis state must be, from the ledger of record: its credits, the sum of its debits,
 * and the sum held by open reservations.
 */
export async function partyTotals(db: Db, partyId: string) {
  const credits = await db
    .select({ id: ledgerEntries.id, amount: ledgerEntries.amount, appliedAt: ledgerEntries.appliedAt })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "credit")));
  const [debited] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "debit")));
  const [open] = await db
    .select({ sum: sql<string>`coalesce(sum(${reservations.cost}), 0)::text` })
    .from(reservations)
    .where(and(eq(reservations.partyId, partyId), statusIn(OPEN_STATUSES)));
  return { credits, debited: BigInt(debited?.sum ?? "0"), open: BigInt(open?.sum ?? "0") };
}

/**
 * A page of a party's reservations that Redis must hold (open, or closed after `closedSince`: inside the
 * idempotency window) after the (createdAt, id) cursor, oldest first.
 */
export function liveReservationsAfter(
  db: Db,
  partyId: string,
  closedSince: Date,
  after: { at: Date; id: string },
  limit: number,
) {
  return db
    .select()
    .from(reservations)
    .where(
      and(
        eq(reservations.partyId, partyId),
        sql`(${statusIn(OPEN_STATUSES)} or ${reservations.updatedAt} > ${closedSince.toISOString()}::timestamptz)`,
        sql`(${reservations.createdAt}, ${reservations.id}) > (${after.at.toISOString()}::timestamptz, ${after.id})`,
      ),
    )
    .orderBy(asc(reservations.createdAt), asc(reservations.id))
    .limit(limit);
}

/** A party's open reservations (the ones Redis must hold and count in `reserved`). */
export function openReservations(db: Db, partyId: string) {
  return db
    .select({ id: reservations.id, status: reservations.status, cost: reservations.cost })
    .from(reservations)
    .where(and(eq(reservations.partyId, partyId), statusIn(OPEN_STATUSES)));
}

/** The statuses of the given reservations (to compare with the records Redis still holds). */
export function statusesOf(db: Db, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .select({ id: reservations.id, status: reservations.status })
    .from(reservations)
    .where(sql`${reservations.id} = any(${pgArray(ids)}::text[])`);
}

/**
 * The audit trail's breaks for one party: debits whose amount is not the sum of the reservations listing
 * them (those of archived months counted from `archived_debit_listings`; or that no reservation lists), reservations listing a debit that does not exist, settled paid
 * reservations listing none, and credits never applied to Redis.
 */
export async function auditBreaks(db: Db, partyId: string) {
  const debits = await db.execute<{ id: string; amount: string | null; listed: string | null }>(sql`
    select coalesce(e.id, s.debit_id) as id, e.amount::text as amount, s.total::text as listed
    from (select * from ${ledgerEntries} where party_id = ${partyId} and kind = 'debit') e
    full join (
      select debit_id, sum(cost) as total from (
        select debit_id, cost from ${reservations} where party_id = ${partyId} and debit_id is not null
        union all
        select debit_id, listed from ${archivedDebitListings} where party_id = ${partyId}
      ) l group by debit_id
    ) s on s.debit_id = e.id
    where e.amount is distinct from s.total`);
  const [counts] = await db.execute<{ unlisted: string; unapplied: string }>(sql`
    select
      (select count(*) from ${reservations}
        where party_id = ${partyId} and status = 'settled' and cost > 0 and debit_id is null)::text as unlisted,
      (select count(*) from ${ledgerEntries}
        where party_id = ${partyId} and kind = 'credit' and applied_at is null)::text as unapplied`);
  return {
    debits: [...debits],
    unlistedSettled: Number(counts?.unlisted ?? 0),
    unappliedCredits: Number(counts?.unapplied ?? 0),
  };
}
