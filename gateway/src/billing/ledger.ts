import { createHash } from "node:crypto";
import { newId } from "@stake/db/ids";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { LedgerScripts } from "@stake/db/redis/scripts";

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

/** The scope (idempotency key, provider key, party id): party is in the key's hash tag, the rest hashed. */
export function scopeHash(providerKey: string, idempotencyKey: string): string {
  return createHash("sha256").update(providerKey).update("\0").update(idempotencyKey).digest("base64url");
}

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

export function createLedger(redis: LedgerScripts, keys: RedisKeys, ttlSeconds: number) {
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
      const reply = await redis.gwReserve(
        keys.gateway.account(input.partyId),
        recordKey,
        keys.gateway.reservationIndex(input.partyId),
        input.cost.toString(),
        id,
        input.idempotencyKey,
        input.providerKey,
        input.costInUsd,
        String(Date.now()),
        String(ttlSeconds),
      );
      if (reply[0] === "OK")
        return { ok: true, reservation: { id, partyId: input.partyId, recordKey, cost: input.cost } };
      if (reply[0] === "DUPLICATE") {
        return { ok: false, code: "DUPLICATE", existing: toReservation(input.partyId, pairs(reply, 1)) };
      }
      return { ok: false, code: "INSUFFICIENT_BALANCE" };
    },

    async finalize(r: ReservationHandle, outcome: "registered" | "failed"): Promise<FinalizeResult> {
      const reply = await redis.gwFinalize(
        keys.gateway.account(r.partyId),
        r.recordKey,
        outcome,
        String(Date.now()),
      );
      if (reply[0] === "OK") return { ok: true };
      return reply[1] !== undefined
        ? { ok: false, code: "NOT_IN_FLIGHT", status: reply[1] }
        : { ok: false, code: "NOT_FOUND" };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
