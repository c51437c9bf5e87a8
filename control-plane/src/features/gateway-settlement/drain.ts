import { newId } from "@stake/db/ids";
import { commitDebit } from "./debit.ts";
import { eventCount, markDirty, readEvents, settleRecords, trimEvents } from "./hot-repo.ts";
import { type ReservationRow, upsertReservations } from "./repo.ts";
import { RANK, type SettlementDeps, type SettlementOptions, type Status } from "./types.ts";

const STREAM_BATCH = 5000;
/** Stream batches drained per party per pass; a longer backlog is left for the next pass. */
const MAX_DRAIN_BATCHES = 20;

/**
 * Charging while draining (the worker's drain): the batch's `registered` reservations are settled in
 * Redis before the batch reaches Postgres, so each arrives `settled` with its debit in one statement.
 */
export type DrainOptions = Pick<SettlementOptions, "afterStep"> & {
  charge?: Pick<SettlementOptions, "ttlSeconds" | "now">;
};

/**
 * Upserts the party's stream events (the gateway's reserve and finalize outcomes) into Postgres in order,
 * then trims what was committed (at-least-once: the upsert never moves a status backwards, and a
 * replayed `registered` event finds its record already settled, which settle.lua answers ALREADY and
 * Postgres does not charge again). The settlement steps leave no events: the worker records them in
 * Postgres itself.
 *
 * The gateway marks a party dirty only when its script appends to an empty stream, so a drain that leaves
 * events behind (appended meanwhile, or a backlog past this pass's share) marks the party again itself.
 * An append after the final XLEN found the stream empty, and so is marked by the gateway.
 */
export async function drainReservationLog(
  deps: SettlementDeps,
  partyId: string,
  options: DrainOptions = {},
): Promise<{ drained: number; settled: number }> {
  const done = { drained: 0, settled: 0 };
  // Batch k reaches Postgres (then is trimmed) while batch k+1 is read and settled in Redis: the two
  // stores work side by side. Writes stay in stream order, and a trim never passes an uncommitted batch.
  let committing: Promise<void> = Promise.resolve();
  let after: string | undefined;
  for (let batch = 0; batch < MAX_DRAIN_BATCHES; batch++) {
    const events = await readEvents(deps.redis, deps.keys, partyId, STREAM_BATCH, after);
    if (!events.length) break;
    after = events[events.length - 1]?.id as string;
    const rows = collapse(partyId, events);
    let debitId: string | null = null;
    if (options.charge) {
      debitId = newId("ledgerEntry");
      done.settled += await settleRegistered(deps, partyId, rows, debitId, options.charge);
      await options.afterStep?.("settled-in-redis", partyId);
    }
    const lastId = after;
    const commit = async () => {
      if (debitId === null || rows.length === 0) await upsertReservations(deps.db, partyId, rows);
      else await commitDebit(deps.db, partyId, (tx) => upsertReservations(tx, partyId, rows, debitId));
      await options.afterStep?.("drained-to-postgres", partyId);
      await trimEvents(deps.redis, deps.keys, partyId, lastId);
    };
    await committing;
    committing = commit();
    // Not awaited yet: a failure surfaces at the next await of `committing`, with nothing trimmed past it.
    committing.catch(() => {});
    done.drained += events.length;
    if (events.length < STREAM_BATCH) break;
  }
  await committing;
  if ((await eventCount(deps.redis, deps.keys, partyId)) > 0)
    await markDirty(deps.redis, deps.keys, [partyId]);
  return done;
}

/** One row per reservation id (ON CONFLICT cannot touch a row twice): the furthest status wins. */
function collapse(partyId: string, events: { fields: Record<string, string> }[]): ReservationRow[] {
  const byId = new Map<string, ReservationRow>();
  for (const { fields: e } of events) {
    if (!e.id || !e.s || !(e.s in RANK)) continue;
    const status = e.s as Status;
    const seen = byId.get(e.id);
    if (seen && RANK[seen.status] >= RANK[status]) continue;
    byId.set(e.id, {
      id: e.id,
      partyId,
      providerKey: e.k ?? "",
      idempotencyKey: e.i ?? "",
      costInUsd: e.u ?? "0",
      cost: e.c ?? "0",
      status,
      debitId: null,
      keyId: e.a || null,
      httpStatus: e.x ? Number(e.x) : null,
      upstreamMs: e.l ? Number(e.l) : null,
      path: e.p || null,
      createdAt: new Date(Number(e.t)),
      updatedAt: new Date(Number(e.m)),
    });
  }
  return [...byId.values()];
}

/**
 * settle.lua for the rows whose latest event is `registered`; those it settled (or had settled before a
 * crash) become `settled` rows listing `debitId` (when not free). Returns how many.
 */
async function settleRegistered(
  deps: SettlementDeps,
  partyId: string,
  rows: ReservationRow[],
  debitId: string,
  options: Pick<SettlementOptions, "ttlSeconds" | "now">,
): Promise<number> {
  const registered = rows.filter((r) => r.status === "registered");
  if (!registered.length) return 0;
  const at = (options.now ?? Date.now)();
  const replies = await settleRecords(deps.redis, deps.keys, partyId, registered, at, options.ttlSeconds);
  let settled = 0;
  registered.forEach((r, i) => {
    const outcome = replies[i]?.[0];
    // Anything else (a record released meanwhile) stays `registered` here; its own events follow.
    if (outcome !== "OK" && outcome !== "ALREADY") return;
    r.status = "settled";
    r.updatedAt = new Date(at);
    r.debitId = r.cost === "0" ? null : debitId;
    settled++;
  });
  return settled;
}
