import { newId } from "@stake/db/ids";
import { type RedisKeys, scopeHash } from "@stake/db/redis/keys";
import { type LedgerScripts, ledgerPipeline } from "@stake/db/redis/scripts";
import type { Redis } from "ioredis";
import { type Batch, TurnBatcher } from "./batch.ts";

export { scopeHash };

export interface Reservation {
  idempotencyKey: string;
  partyId: string;
  providerKey: string;
  costInUSD: number;
  status: string;
  createdAt: string;
  updatedAt: string;
}

export interface ReservationHandle {
  id: string;
  partyId: string;
  recordKey: string;
  cost: bigint;
}

export type ReserveResult =
  | { ok: true; reservation: ReservationHandle }
  | { ok: false; code: "INSUFFICIENT_BALANCE" }
  | { ok: false; code: "DUPLICATE"; existing: Reservation };

/**
 * `registered` / `failed` move an in-flight reservation; `failed-mid-body` releases a `registered` one whose
 * provider broke off its body (too late once settlement has queued it).
 */
export type FinalizeOutcome = "registered" | "failed" | "failed-mid-body";

export type FinalizeResult =
  | { ok: true }
  | { ok: false; code: "NOT_FOUND" | "NOT_IN_FLIGHT"; status?: string };

/** Compact Redis record (one-letter fields) → the spec's Reservation resource. */
export function toReservation(partyId: string, fields: Record<string, string>): Reservation {
  return {
    idempotencyKey: fields.i ?? "",
    partyId,
    providerKey: fields.k ?? "",
    costInUSD: Number(fields.u ?? "0"),
    status: fields.s ?? "",
    createdAt: new Date(Number(fields.t)).toISOString(),
    updatedAt: new Date(Number(fields.m)).toISOString(),
  };
}

function pairs(flat: string[], from: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = from; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1] as string;
  return out;
}

type ScriptName = "gwReserve" | "gwFinalize";
type ScriptClient = Pick<Redis, "pipeline" | "sadd"> & Pick<LedgerScripts, ScriptName>;

/**
 * Runs one batch script per party batch: a lone batch (the usual turn) as a plain command, several in one
 * pipeline write. A party whose call appended to an empty event stream is then added to the settlement
 * worker's dirty set, off the request's path. That SADD is best effort: if it is lost, the worker's
 * periodic re-mark of every party still finds the events.
 */
function sender(redis: ScriptClient, script: ScriptName, dirtyKey: string) {
  const run = async (batches: Batch[]): Promise<Array<string[][] | Error>> => {
    if (batches.length === 1) {
      const b = batches[0] as Batch;
      return [await redis[script](b.keys.length, ...b.keys, ...b.args).catch((err: Error) => err)];
    }
    const pipeline = ledgerPipeline(redis);
    for (const b of batches) pipeline[script](b.keys.length, ...b.keys, ...b.args);
    const results = (await pipeline.exec()) ?? [];
    return batches.map((_, i) => {
      const [err, value] = results[i] ?? [new Error("missing pipeline reply"), null];
      return err ?? (value as string[][]);
    });
  };
  return async (batches: Batch[]): Promise<Array<string[][] | Error>> => {
    const results = await run(batches);
    const mark = batches.filter((b, i) => {
      const items = results[i];
      // Keys are the account, the stream, then one record per item; a reply past the items is MARK.
      return Array.isArray(items) && items.length > b.keys.length - 2;
    });
    if (mark.length) redis.sadd(dirtyKey, ...mark.map((b) => b.partyId)).catch(() => {});
    return results;
  };
}

/** `redis` must have been passed through defineLedgerScripts. */
export function createLedger(redis: ScriptClient, keys: RedisKeys, ttlSeconds: number) {
  const g = keys.gateway;
  const reserves = new TurnBatcher(
    (partyId) => [g.account(partyId), g.reservationLog(partyId)],
    () => [String(Date.now()), String(ttlSeconds)],
    sender(redis, "gwReserve", g.settleDirty),
  );
  const finalizes = new TurnBatcher(
    (partyId) => [g.account(partyId), g.reservationLog(partyId)],
    () => [String(Date.now())],
    sender(redis, "gwFinalize", g.settleDirty),
  );

  return {
    async reserve(input: {
      partyId: string;
      providerKey: string;
      idempotencyKey: string;
      costInUsd: string;
      cost: bigint;
    }): Promise<ReserveResult> {
      const id = newId("reservation");
      const scope = scopeHash(input.providerKey, input.idempotencyKey);
      const recordKey = g.reservation(input.partyId, scope);
      const reply = await reserves.add(input.partyId, recordKey, [
        input.cost.toString(),
        id,
        input.idempotencyKey,
        input.providerKey,
        input.costInUsd,
        scope,
      ]);
      if (reply[0] === "OK")
        return { ok: true, reservation: { id, partyId: input.partyId, recordKey, cost: input.cost } };
      if (reply[0] === "DUPLICATE") {
        return { ok: false, code: "DUPLICATE", existing: toReservation(input.partyId, pairs(reply, 1)) };
      }
      return { ok: false, code: "INSUFFICIENT_BALANCE" };
    },

    async finalize(r: ReservationHandle, outcome: FinalizeOutcome): Promise<FinalizeResult> {
      const reply = await finalizes.add(r.partyId, r.recordKey, [outcome, r.id]);
      if (reply[0] === "OK") return { ok: true };
      return reply[1] !== undefined
        ? { ok: false, code: "NOT_IN_FLIGHT", status: reply[1] }
        : { ok: false, code: "NOT_FOUND" };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
