import { and, asc, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import type { Db } from "./client.ts";
import { newId } from "./ids.ts";
import { type RedisKeys, scopeHash } from "./redis/keys.ts";
import { defineLedgerScripts, ledgerPipeline } from "./redis/scripts.ts";
import { ledgerEntries, parties, reservations } from "./schema/gateway.ts";

/**
 * Settlement (DESIGN §6 step 7 and the Postgres bullet points), run by the worker off the request path:
 * per dirty party, drain its Redis event stream into Postgres `reservations`, settle `registered`
 * reservations into ledger debits, and fail reservations left in flight by a gateway that died.
 *
 * Every step is idempotent by reservation id, so a crash anywhere is repaired by running the pass again:
 * the stream is trimmed only after its events are committed (at-least-once; the upsert never moves a
 * status backwards), the debit is unique by `externalRef` = reservation id, and settle.lua answers
 * ALREADY for a step already taken, so the Redis balance is debited once.
 */

type Status = (typeof reservations.$inferSelect)["status"];
// `failed` outranks `registered`: a provider that breaks off a 2xx body releases a registered reservation
// (Redis refuses that once it is queued, so `failed` and `queued` never meet on one reservation).
const RANK: Record<Status, number> = {
  request_in_flight: 0,
  registered: 1,
  failed: 2,
  queued: 2,
  settled: 3,
};
const rankSql = (column: ReturnType<typeof sql>) =>
  sql`case ${column} when 'request_in_flight' then 0 when 'registered' then 1 when 'failed' then 2 when 'queued' then 2 when 'settled' then 3 end`;

const STREAM_BATCH = 1000;
const SETTLE_BATCH = 2000;
const REAP_BATCH = 500;
/** Stream batches drained per party per pass; a longer backlog is left for the next pass. */
const MAX_DRAIN_BATCHES = 50;

export interface SettlementDeps {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

/** Points between the steps of one party's settlement, where a test can inject a crash. */
export type SettlementStep = "queued-in-redis" | "debited-in-postgres" | "settled-in-redis";

export interface SettlementOptions {
  /** In-flight reservations older than this are failed (upstream timeout plus a grace period). */
  reapAfterMs: number;
  /** Parties taken from the dirty set at a time. */
  partyBatch?: number;
  now?: () => number;
  /** Called after each step; throwing here simulates a crash at that point. */
  afterStep?: (step: SettlementStep, partyId: string) => void | Promise<void>;
}

export interface PartySettlement {
  drained: number;
  settled: number;
  reaped: number;
}

function fields(flat: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

/** The stream id just after `id`, for XTRIM MINID (which keeps ids ≥ the given one). */
function nextStreamId(id: string): string {
  const [ms, seq] = id.split("-");
  return `${ms}-${BigInt(seq ?? "0") + 1n}`;
}

/**
 * Upserts the party's stream events (the gateway's reserve and finalize outcomes) into Postgres in order,
 * then trims what was committed. The settlement steps leave no events: the worker records them in
 * Postgres itself, and only the transaction that marks the debit applied writes `settled`.
 *
 * The gateway marks a party dirty only when its script appends to an empty stream, so a drain that leaves
 * events behind (appended meanwhile, or a backlog past this pass's share) marks the party again itself.
 * An append after the final XLEN found the stream empty, and so is marked by the gateway.
 */
export async function drainReservationLog(deps: SettlementDeps, partyId: string): Promise<number> {
  const stream = deps.keys.gateway.reservationLog(partyId);
  const drained = await drainCommitted(deps, partyId, stream);
  if ((await deps.redis.xlen(stream)) > 0) await deps.redis.sadd(deps.keys.gateway.settleDirty, partyId);
  return drained;
}

async function drainCommitted(deps: SettlementDeps, partyId: string, stream: string): Promise<number> {
  let drained = 0;
  for (let batch = 0; batch < MAX_DRAIN_BATCHES; batch++) {
    const entries = await deps.redis.xrange(stream, "-", "+", "COUNT", STREAM_BATCH);
    if (!entries.length) return drained;
    const byId = new Map<string, typeof reservations.$inferInsert>();
    for (const [, flat] of entries) {
      const e = fields(flat);
      if (!e.id || !e.s || !(e.s in RANK)) continue;
      const status = e.s as Status;
      const seen = byId.get(e.id);
      // One row per id per statement (ON CONFLICT cannot touch a row twice); the furthest status wins.
      if (seen && RANK[seen.status as Status] >= RANK[status]) continue;
      byId.set(e.id, {
        id: e.id,
        partyId,
        providerKey: e.k ?? "",
        idempotencyKey: e.i ?? "",
        costInUsd: e.u ?? "0",
        cost: e.c ?? "0",
        status,
        createdAt: new Date(Number(e.t)),
        updatedAt: new Date(Number(e.m)),
      });
    }
    if (byId.size) {
      await deps.db
        .insert(reservations)
        .values([...byId.values()])
        .onConflictDoUpdate({
          target: reservations.id,
          set: { status: sql`excluded.status`, updatedAt: sql`excluded.updated_at` },
          setWhere: sql`${rankSql(sql`excluded.status`)} > ${rankSql(sql`${reservations.status}`)}`,
        });
    }
    const last = entries[entries.length - 1]?.[0] as string;
    await deps.redis.xtrim(stream, "MINID", nextStreamId(last));
    drained += entries.length;
    if (entries.length < STREAM_BATCH) return drained;
  }
  return drained;
}

/** Runs one settle.lua step for a batch of one party's reservations; returns the ids whose step is done. */
async function settleStep(
  deps: SettlementDeps,
  partyId: string,
  rows: { id: string; providerKey: string; idempotencyKey: string }[],
  step: "queue" | "settle",
  now: number,
): Promise<string[]> {
  if (!rows.length) return [];
  const g = deps.keys.gateway;
  const records = rows.map((r) => g.reservation(partyId, scopeHash(r.providerKey, r.idempotencyKey)));
  const replies = await defineLedgerScripts(deps.redis).gwSettle(
    1 + records.length,
    g.account(partyId),
    ...records,
    step,
    String(now),
    ...rows.map((r) => r.id),
  );
  const done: string[] = [];
  replies.forEach(([outcome, status], i) => {
    const id = rows[i]?.id as string;
    if (outcome === "OK" || outcome === "ALREADY") done.push(id);
    else deps.logger?.warn({ reservation: id, partyId, step, outcome, status }, "settlement step skipped");
  });
  return done;
}

/**
 * registered → queued (Redis) → debit entries + queued (Postgres) → settled with `balance −= cost,
 * reserved −= cost` (Redis) → settled + debits applied (Postgres), in batches.
 */
export async function settleParty(
  deps: SettlementDeps,
  partyId: string,
  options: Pick<SettlementOptions, "now" | "afterStep"> = {},
): Promise<number> {
  const now = options.now ?? Date.now;
  let settled = 0;
  // A reservation Redis no longer knows (record expired) stays behind; the cursor moves past it.
  let after = new Date(0);
  let afterId = "";
  for (;;) {
    const rows = await deps.db
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
          inArray(reservations.status, ["registered", "queued"]),
          sql`(${reservations.createdAt}, ${reservations.id}) > (${after.toISOString()}::timestamptz, ${afterId})`,
        ),
      )
      .orderBy(asc(reservations.createdAt), asc(reservations.id))
      .limit(SETTLE_BATCH);
    if (!rows.length) return settled;
    const lastRow = rows[rows.length - 1] as (typeof rows)[number];
    after = lastRow.createdAt;
    afterId = lastRow.id;

    // Postgres gets the same updatedAt as the Redis record, so a rebuilt record is identical.
    const queuedAt = now();
    const queued = new Set(await settleStep(deps, partyId, rows, "queue", queuedAt));
    await options.afterStep?.("queued-in-redis", partyId);
    const toDebit = rows.filter((r) => queued.has(r.id));
    if (toDebit.length) {
      await deps.db.transaction(async (tx) => {
        const debits = toDebit.filter((r) => r.cost !== "0");
        if (debits.length) {
          await tx
            .insert(ledgerEntries)
            .values(
              debits.map((r) => ({
                id: newId("ledgerEntry"),
                partyId,
                kind: "debit" as const,
                amount: r.cost,
                externalRef: r.id,
              })),
            )
            .onConflictDoNothing({ target: ledgerEntries.externalRef });
        }
        await tx
          .update(reservations)
          .set({ status: "queued", updatedAt: new Date(queuedAt) })
          .where(
            and(
              inArray(
                reservations.id,
                toDebit.map((r) => r.id),
              ),
              eq(reservations.status, "registered"),
            ),
          );
      });
    }
    await options.afterStep?.("debited-in-postgres", partyId);

    const settledAt = now();
    const done = await settleStep(deps, partyId, toDebit, "settle", settledAt);
    await options.afterStep?.("settled-in-redis", partyId);
    if (done.length) {
      await deps.db.transaction(async (tx) => {
        await tx
          .update(reservations)
          .set({ status: "settled", updatedAt: new Date(settledAt) })
          .where(and(inArray(reservations.id, done), inArray(reservations.status, ["registered", "queued"])));
        await tx
          .update(ledgerEntries)
          .set({ appliedAt: new Date() })
          .where(
            and(
              eq(ledgerEntries.partyId, partyId),
              eq(ledgerEntries.kind, "debit"),
              inArray(ledgerEntries.externalRef, done),
              isNull(ledgerEntries.appliedAt),
            ),
          );
      });
      settled += done.length;
    }
    if (rows.length < SETTLE_BATCH) return settled;
  }
}

/**
 * Fails reservations still in flight past `reapAfterMs` (their gateway died mid-request) through
 * finalize.lua, which moves only an in-flight reservation, so it can never release twice. The `failed`
 * events reach Postgres with the next drain.
 */
export async function reapParty(
  deps: SettlementDeps,
  partyId: string,
  options: Pick<SettlementOptions, "reapAfterMs" | "now">,
): Promise<number> {
  const now = (options.now ?? Date.now)();
  const rows = await deps.db
    .select({
      id: reservations.id,
      providerKey: reservations.providerKey,
      idempotencyKey: reservations.idempotencyKey,
    })
    .from(reservations)
    .where(
      and(
        eq(reservations.partyId, partyId),
        eq(reservations.status, "request_in_flight"),
        lt(reservations.createdAt, new Date(now - options.reapAfterMs)),
      ),
    )
    .orderBy(asc(reservations.createdAt))
    .limit(REAP_BATCH);
  if (!rows.length) return 0;
  const pipe = ledgerPipeline(defineLedgerScripts(deps.redis));
  for (const r of rows) {
    pipe.gwFinalize(
      3,
      deps.keys.gateway.account(partyId),
      deps.keys.gateway.reservationLog(partyId),
      deps.keys.gateway.reservation(partyId, scopeHash(r.providerKey, r.idempotencyKey)),
      String(now),
      "failed",
      r.id,
    );
  }
  let reaped = 0;
  for (const [i, [err, reply]] of ((await pipe.exec()) ?? []).entries()) {
    if (err) throw err;
    const [outcome] = (reply as string[][])[0] ?? [];
    if (outcome === "OK") reaped++;
    // NOT_IN_FLIGHT: the gateway finalized it after all and the next drain records that.
    else if (outcome === "NOT_FOUND")
      deps.logger?.warn({ reservation: rows[i]?.id, partyId }, "in-flight reservation unknown to Redis");
  }
  return reaped;
}

/** drain → settle → reap → drain (so the events of this pass's own steps are committed and trimmed). */
export async function settlePartyOnce(
  deps: SettlementDeps,
  partyId: string,
  options: SettlementOptions,
): Promise<PartySettlement> {
  let drained = await drainReservationLog(deps, partyId);
  const settled = await settleParty(deps, partyId, options);
  const reaped = await reapParty(deps, partyId, options);
  drained += await drainReservationLog(deps, partyId);
  return { drained, settled, reaped };
}

/**
 * One pass: takes parties off the dirty set until it is empty and settles each. A party whose
 * settlement throws is put back for the next pass; the error is logged, not rethrown, so one party
 * cannot stall the others.
 */
export async function runSettlementPass(deps: SettlementDeps, options: SettlementOptions) {
  const total = { parties: 0, drained: 0, settled: 0, reaped: 0, errors: 0 };
  const seen = new Set<string>();
  for (;;) {
    const batch = (await deps.redis.spop(deps.keys.gateway.settleDirty, options.partyBatch ?? 100)) ?? [];
    // A party marked again while this pass runs waits for the next pass, so busy parties cannot pin it.
    const again = batch.filter((p) => seen.has(p));
    if (again.length) await deps.redis.sadd(deps.keys.gateway.settleDirty, ...again);
    const fresh = batch.filter((p) => !seen.has(p));
    if (!fresh.length) return total;
    for (const partyId of fresh) {
      seen.add(partyId);
      try {
        const r = await settlePartyOnce(deps, partyId, options);
        total.parties++;
        total.drained += r.drained;
        total.settled += r.settled;
        total.reaped += r.reaped;
      } catch (err) {
        total.errors++;
        await deps.redis.sadd(deps.keys.gateway.settleDirty, partyId);
        deps.logger?.error({ err, partyId }, "settlement of party failed");
      }
    }
  }
}

/** Backstop for a lost SADD: marks every party dirty (the worker runs this every minute). */
export async function markAllPartiesDirty(deps: SettlementDeps): Promise<number> {
  let marked = 0;
  let after = "";
  for (;;) {
    const page = await deps.db
      .select({ id: parties.id })
      .from(parties)
      .where(gt(parties.id, after))
      .orderBy(asc(parties.id))
      .limit(10_000);
    if (!page.length) return marked;
    await deps.redis.sadd(deps.keys.gateway.settleDirty, ...page.map((p) => p.id));
    marked += page.length;
    after = page[page.length - 1]?.id as string;
  }
}

const OPEN: Status[] = ["request_in_flight", "registered", "queued"];

/**
 * Recovery: rewrites one party's Redis state from Postgres, the ledger of record. Run with every gateway
 * stopped (a reservation taken meanwhile would be overwritten). First drains whatever the party's stream
 * still holds, then sets `balance` = Σ credits − Σ debits of settled reservations, `reserved` = Σ cost of
 * reservations in request_in_flight | registered | queued, the `applied` set to every credit entry id,
 * and the reservation records (and index) still inside the idempotency window `ttlSeconds`.
 */
export async function rebuildPartyRedis(
  deps: SettlementDeps,
  partyId: string,
  options: { ttlSeconds: number; now?: () => number },
) {
  const now = (options.now ?? Date.now)();
  await drainReservationLog(deps, partyId);
  const { db, redis, keys } = deps;
  const credits = await db
    .select({ id: ledgerEntries.id, amount: ledgerEntries.amount, appliedAt: ledgerEntries.appliedAt })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "credit")));
  const [debited] = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text` })
    .from(ledgerEntries)
    .innerJoin(reservations, eq(reservations.id, ledgerEntries.externalRef))
    .where(
      and(
        eq(ledgerEntries.partyId, partyId),
        eq(ledgerEntries.kind, "debit"),
        eq(reservations.status, "settled"),
      ),
    );
  const [open] = await db
    .select({ sum: sql<string>`coalesce(sum(${reservations.cost}), 0)::text` })
    .from(reservations)
    .where(and(eq(reservations.partyId, partyId), inArray(reservations.status, OPEN)));
  const balance = credits.reduce((s, c) => s + BigInt(c.amount), 0n) - BigInt(debited?.sum ?? "0");
  const reserved = BigInt(open?.sum ?? "0");

  const g = keys.gateway;
  const tx = redis.multi();
  tx.del(g.account(partyId), g.applied(partyId));
  tx.hset(g.account(partyId), "balance", balance.toString(), "reserved", reserved.toString());
  if (credits.length) tx.sadd(g.applied(partyId), ...credits.map((c) => c.id));
  await tx.exec();
  const unapplied = credits.filter((c) => !c.appliedAt).map((c) => c.id);
  if (unapplied.length) {
    await db.update(ledgerEntries).set({ appliedAt: new Date() }).where(inArray(ledgerEntries.id, unapplied));
  }

  let records = 0;
  let after = new Date(now - options.ttlSeconds * 1000);
  let afterId = "";
  for (;;) {
    const rows = await db
      .select()
      .from(reservations)
      .where(
        and(
          eq(reservations.partyId, partyId),
          sql`(${reservations.createdAt}, ${reservations.id}) > (${after.toISOString()}::timestamptz, ${afterId})`,
        ),
      )
      .orderBy(asc(reservations.createdAt), asc(reservations.id))
      .limit(1000);
    if (!rows.length) break;
    const pipe = redis.pipeline();
    for (const r of rows) {
      const scope = scopeHash(r.providerKey, r.idempotencyKey);
      const key = g.reservation(partyId, scope);
      const t = r.createdAt.getTime();
      pipe.del(key);
      pipe.hset(key, {
        id: r.id,
        i: r.idempotencyKey,
        k: r.providerKey,
        u: r.costInUsd,
        c: r.cost,
        s: r.status,
        t: String(t),
        m: String(r.updatedAt.getTime()),
      });
      pipe.pexpireat(key, t + options.ttlSeconds * 1000);
    }
    for (const [err] of (await pipe.exec()) ?? []) if (err) throw err;
    records += rows.length;
    const last = rows[rows.length - 1] as (typeof rows)[number];
    after = last.createdAt;
    afterId = last.id;
  }
  return { partyId, balance, reserved, records };
}
