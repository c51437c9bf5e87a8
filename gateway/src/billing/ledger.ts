import { newId } from "@stake/db/ids";
import { type RedisKeys, scopeHash } from "@stake/db/redis/keys";
import { type LedgerPipeline, ledgerPipeline } from "@stake/db/redis/scripts";
import type { Redis } from "ioredis";

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

/**
 * Runs one script and, in the same round trip, marks the party for the settlement worker. The SADD is
 * best effort: if it is lost the worker's periodic re-mark of every party still finds the events.
 */
async function withDirtyMark(
  redis: Pick<Redis, "pipeline">,
  dirtyKey: string,
  partyId: string,
  queue: (p: LedgerPipeline) => LedgerPipeline,
): Promise<string[]> {
  const replies = await queue(ledgerPipeline(redis)).sadd(dirtyKey, partyId).exec();
  const [err, reply] = replies?.[0] ?? [new Error("empty pipeline reply"), null];
  if (err) throw err;
  return reply as string[];
}

/** `redis` must have been passed through defineLedgerScripts. */
export function createLedger(redis: Pick<Redis, "pipeline">, keys: RedisKeys, ttlSeconds: number) {
  const dirty = keys.gateway.settleDirty;
  return {
    async reserve(input: {
      partyId: string;
      providerKey: string;
      idempotencyKey: string;
      costInUsd: string;
      cost: bigint;
    }): Promise<ReserveResult> {
      const id = newId("reservation");
      const recordKey = keys.gateway.reservation(
        input.partyId,
        scopeHash(input.providerKey, input.idempotencyKey),
      );
      const reply = await withDirtyMark(redis, dirty, input.partyId, (p) =>
        p.gwReserve(
          keys.gateway.account(input.partyId),
          recordKey,
          keys.gateway.reservationIndex(input.partyId),
          keys.gateway.reservationLog(input.partyId),
          input.cost.toString(),
          id,
          input.idempotencyKey,
          input.providerKey,
          input.costInUsd,
          String(Date.now()),
          String(ttlSeconds),
        ),
      );
      if (reply[0] === "OK")
        return { ok: true, reservation: { id, partyId: input.partyId, recordKey, cost: input.cost } };
      if (reply[0] === "DUPLICATE") {
        return { ok: false, code: "DUPLICATE", existing: toReservation(input.partyId, pairs(reply, 1)) };
      }
      return { ok: false, code: "INSUFFICIENT_BALANCE" };
    },

    async finalize(r: ReservationHandle, outcome: "registered" | "failed"): Promise<FinalizeResult> {
      const reply = await withDirtyMark(redis, dirty, r.partyId, (p) =>
        p.gwFinalize(
          keys.gateway.account(r.partyId),
          r.recordKey,
          keys.gateway.reservationLog(r.partyId),
          outcome,
          String(Date.now()),
        ),
      );
      if (reply[0] === "OK") return { ok: true };
      return reply[1] !== undefined
        ? { ok: false, code: "NOT_IN_FLIGHT", status: reply[1] }
        : { ok: false, code: "NOT_FOUND" };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
