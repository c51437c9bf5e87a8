import { createHash } from "node:crypto";
import { newId } from "@stake/db/ids";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { LedgerScripts } from "@stake/db/redis/scripts";
import type { Redis } from "ioredis";
import { TurnBatcher } from "./batch.ts";

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

type ScriptName = "gwReserve" | "gwFinalize";

/** Runs one batch script per party batch: a single call, or all of them in one pipeline write. */
function sender(redis: Redis & LedgerScripts, script: ScriptName) {
  return async (batches: Array<{ keys: string[]; args: string[] }>): Promise<Array<string[][] | Error>> => {
    if (batches.length === 1) {
      const b = batches[0] as { keys: string[]; args: string[] };
      return [await redis[script](b.keys.length, ...b.keys, ...b.args)];
    }
    const pipeline = redis.pipeline() as unknown as LedgerScripts & { exec(): ReturnType<Redis["exec"]> };
    for (const b of batches) void pipeline[script](b.keys.length, ...b.keys, ...b.args);
    const results = (await pipeline.exec()) ?? [];
    return batches.map((_, i) => {
      const [err, value] = results[i] ?? [new Error("missing pipeline reply"), null];
      return err ?? (value as string[][]);
    });
  };
}

export function createLedger(redis: Redis & LedgerScripts, keys: RedisKeys, ttlSeconds: number) {
  const reserves = new TurnBatcher(
    (partyId) => [keys.gateway.account(partyId), keys.gateway.reservationIndex(partyId)],
    () => [String(Date.now()), String(ttlSeconds)],
    sender(redis, "gwReserve"),
  );
  const finalizes = new TurnBatcher(
    (partyId) => [keys.gateway.account(partyId)],
    () => [String(Date.now())],
    sender(redis, "gwFinalize"),
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
      const recordKey = keys.gateway.reservation(input.partyId, scope);
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

    async finalize(r: ReservationHandle, outcome: "registered" | "failed"): Promise<FinalizeResult> {
      const reply = await finalizes.add(r.partyId, r.recordKey, [outcome]);
      if (reply[0] === "OK") return { ok: true };
      return reply[1] !== undefined
        ? { ok: false, code: "NOT_IN_FLIGHT", status: reply[1] }
        : { ok: false, code: "NOT_FOUND" };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
