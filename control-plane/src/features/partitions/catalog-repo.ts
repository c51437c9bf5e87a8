import type { DbOrTx } from "@stake/db/client";
import { sql } from "drizzle-orm";

/**
 * Postgres catalog reads and partition DDL, as functions of `(tx, args)`: maintain.ts opens the
 * transactions (UTC session time zone, lock timeout, advisory lock). Bounds are positions: epochs for
 * beacon_rewards, milliseconds since 1970 for the monthly tables; `literal` renders one for the DDL.
 */

export interface Range {
  name: string;
  from: number;
  to: number;
}

/** A bound as Postgres prints it under `TimeZone = UTC`: `123` or `'2026-11-01 00:00:00+00'`. */
function parseBound(text: string): number {
  const raw = text.replace(/^'|'$/g, "");
  if (/^-?\d+$/.test(raw)) return Number(raw);
  const at = Date.parse(`${raw.replace(" ", "T").replace(/\+00$/, "")}Z`);
  if (Number.isNaN(at)) throw new Error(`unreadable partition bound ${text}`);
  return at;
}

/** The ranged partitions of `table` (the default partition aside), lowest first. */
export async function rangesOf(tx: DbOrTx, table: string): Promise<Range[]> {
  const rows = await tx.execute<{ name: string; bound: string }>(sql`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${`public.${table}`}::regclass`);
  return [...rows]
    .flatMap((r) => {
      const m = /^FOR VALUES FROM \((.+)\) TO \((.+)\)$/.exec(r.bound);
      return m?.[1] && m[2] ? [{ name: r.name, from: parseBound(m[1]), to: parseBound(m[2]) }] : [];
    })
    .sort((a, b) => a.from - b.from);
}

/**
 * Creates partition `name` of `table` for [from, to) without the parent's exclusive lock: a plain table
 * shaped like the parent, then ATTACH (SHARE UPDATE EXCLUSIVE on the parent; the indexes are built on
 * the new table). Rows of that range the default partition caught are moved into it first, or ATTACH
 * would refuse.
 */
export async function createRange(
  tx: DbOrTx,
  p: { table: string; key: string; name: string; from: string; to: string },
) {
  const [table, key, name] = [p.table, p.key, p.name].map((n) => sql.identifier(n));
  const [from, to] = [sql.raw(p.from), sql.raw(p.to)];
  await tx.execute(sql`create table ${name} (like ${table} including defaults)`);
  await tx.execute(sql`
    with moved as (
      delete from ${sql.identifier(`${p.table}_default`)} where ${key} >= ${from} and ${key} < ${to} returning *
    )
    insert into ${name} select * from moved`);
  await tx.execute(sql`alter table ${table} attach partition ${name} for values from (${from}) to (${to})`);
}

/** Detaches partition `name` of `table`: from here on it is a plain table no query of `table` reads. */
export async function detachRange(tx: DbOrTx, table: string, name: string) {
  await tx.execute(sql`alter table ${sql.identifier(table)} detach partition ${sql.identifier(name)}`);
}

/** Moves a detached partition into the `archive` schema (kept for a dump), or drops it. */
export async function disposeOf(tx: DbOrTx, name: string, how: "archive" | "drop") {
  if (how === "drop") return void (await tx.execute(sql`drop table ${sql.identifier(name)}`));
  await tx.execute(sql`create schema if not exists archive`);
  await tx.execute(sql`alter table ${sql.identifier(name)} set schema archive`);
}
