import { newId } from "@stake/db/ids";
import { masters, type Redis } from "@stake/db/redis/client";
import { type RedisKeys, scopeHash } from "@stake/db/redis/keys";
import {
  finalizeScript,
  type PartyFailureLimit,
  type PartyRateLimit,
  type ReserveItem,
  repliesMark,
  reserveScript,
  runScript,
} from "@stake/db/redis/scripts";
import { markDirty } from "@stake/db/redis/settle-dirty";
import { type Batch, type Reply, TurnBatcher } from "./batch.ts";

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

/**
 * The party's request window once this request is counted (reserve.lua): what is left of it and the ms
 * until it ends. Absent when there is no request limit.
 */
export interface RequestWindow {
  remaining: number;
  resetMs: number;
}

/**
 * `keyWindows`: the key's named windows once this request is counted, "r t" per limit in the key's order
 * ("" without limits). `limit` names what refused: "party" | "failures" | a key limit's name (429), or
 * "party-daily" | "party-monthly" | "key-daily" | "key-monthly" (402).
 */
export type ReserveResult = { window?: RequestWindow | undefined; keyWindows: string } & (
  | { ok: true; reservation: ReservationHandle }
  | { ok: false; code: "INSUFFICIENT_BALANCE" }
  | { ok: false; code: "RATE_LIMITED"; retryAfterSeconds: number; limit: string }
  | { ok: false; code: "SPEND_CAP_REACHED"; retryAfterSeconds: number; limit: string }
  | { ok: false; code: "DUPLICATE"; existing: Reservation }
);

/** reserve.lua's `r, t` pair (r an integer; both "" when there is no request limit). */
function windowOf(
  remaining: Reply[number] | undefined,
  resetMs: Reply[number] | undefined,
): RequestWindow | undefined {
  if (remaining === undefined || remaining === "") return undefined;
  return { remaining: Number(remaining), resetMs: Number(resetMs) };
}

/**
 * `registered` / `failed` move an in-flight reservation (`failed-unanswered`: failed before any provider
 * byte, so its record is kept minutes, not the idempotency window); `failed-mid-body` releases a `registered` one whose
 * provider broke off its body (too late once settlement has taken it).
 */
export type FinalizeOutcome = "registered" | "failed" | "failed-unanswered" | "failed-mid-body";

/**
 * What the usage roll-up and the request log keep of a request: the status the client got, the
 * provider's latency (ms), the path asked of the provider (no query: it may carry a secret).
 */
export interface ServedFacts {
  httpStatus?: number;
  upstreamMs?: number;
  path?: string;
}

/** `lateCharge`: the reservation had been failed by the reaper; this new one charges the request. */
export type FinalizeResult =
  | { ok: true; lateCharge?: string }
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

function pairs(flat: Reply, from: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = from; i + 1 < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
  return out;
}

type ScriptName = "reserve" | "finalize";

const BATCH_SCRIPTS = { reserve: reserveScript, finalize: finalizeScript } as const;

/**
 * Sends a turn's batches as plain script commands on corked sockets (a cluster's: each master's), so the
 * whole turn leaves in one write per server (an ioredis pipeline object per turn cost more than the
 * batching saved). A party whose call appended to an empty event stream is then added to the settlement
 * worker's dirty set, off the request's path. That SADD is best effort: if it is lost, the worker's
 * periodic re-mark of every party still finds the events.
 */
function sender(redis: Redis, keys: RedisKeys) {
  return async (batches: Batch<ScriptName>[]): Promise<Array<Reply[] | Error>> => {
    // Not ready: ioredis queues the commands and writes them itself once connected.
    const corked =
      redis.status === "ready" && batches.length > 1
        ? masters(redis).filter((server) => server.status === "ready")
        : [];
    let replies: Promise<Reply[] | Error>[];
    for (const server of corked) server.stream.cork();
    try {
      replies = batches.map((b) =>
        runScript<Reply[]>(redis, BATCH_SCRIPTS[b.script].script, b.keys, b.args).catch((err: Error) => err),
      );
    } finally {
      for (const server of corked) server.stream.uncork();
    }
    const results = await Promise.all(replies);
    const mark = batches.filter((b, i) => {
      const items = results[i];
      return Array.isArray(items) && repliesMark(items, b.items);
    });
    if (mark.length) markDirty(redis, keys, new Set(mark.map((b) => b.partyId))).catch(() => {});
    return results;
  };
}

/** The per-party limits reserve.lua applies: requests per window, failed reservations per window. */
export interface PartyLimits {
  rate: PartyRateLimit;
  failures: PartyFailureLimit;
}

/** No request or failure limit, and failed records all kept a day (tools and tests). */
export const NO_PARTY_LIMITS: PartyLimits = {
  rate: { limit: 0, windowMs: 1000 },
  failures: { limit: 0, windowMs: 1000, unansweredTtlSeconds: 86_400 },
};

export function createLedger(redis: Redis, keys: RedisKeys, ttlSeconds: number, limits: PartyLimits) {
  const g = keys.gateway;
  const batcher = new TurnBatcher<ScriptName>(
    {
      reserve: {
        head: (partyId, now) => reserveScript.head(keys, partyId, now),
        shared: (now) => reserveScript.shared(now, limits.rate, limits.failures),
      },
      finalize: {
        head: (partyId, now) => finalizeScript.head(keys, partyId, now),
        shared: (now) => finalizeScript.shared(now, ttlSeconds, limits.failures),
      },
    },
    sender(redis, keys),
  );

  return {
    /** The script's item (scripts.ts `ReserveItem`) but its id and scope, which are made here. */
    async reserve(input: Omit<ReserveItem, "id" | "scope"> & { partyId: string }): Promise<ReserveResult> {
      const id = newId("reservation");
      const scope = scopeHash(input.providerKey, input.idempotencyKey);
      const recordKey = g.reservation(input.partyId, scope);
      // Fields named one by one: on Node 20, `{ ...input, id, scope }` (a spread followed by properties)
      // took V8's slow path, 4–12 µs a request against 0.1 µs (docs/benchmarks.md, "object spread").
      const item: ReserveItem = {
        cost: input.cost,
        id,
        idempotencyKey: input.idempotencyKey,
        providerKey: input.providerKey,
        costInUsd: input.costInUsd,
        scope,
        keyId: input.keyId,
        budget: input.budget,
      };
      const reply = await batcher.add("reserve", input.partyId, recordKey, reserveScript.item(item));
      if (reply[0] === "RATE_LIMITED" || reply[0] === "SPEND_CAP")
        return {
          ok: false,
          code: reply[0] === "SPEND_CAP" ? "SPEND_CAP_REACHED" : "RATE_LIMITED",
          retryAfterSeconds: Math.max(1, Math.ceil(Number(reply[1]) / 1000)),
          window: windowOf(reply[2], reply[3]),
          keyWindows: String(reply[4] ?? ""),
          limit: String(reply[5] ?? ""),
        };
      const window = windowOf(reply[1], reply[2]);
      const keyWindows = String(reply[3] ?? "");
      if (reply[0] === "OK")
        return {
          ok: true,
          reservation: { id, partyId: input.partyId, recordKey, cost: input.cost },
          window,
          keyWindows,
        };
      if (reply[0] === "DUPLICATE") {
        const existing = toReservation(input.partyId, pairs(reply, 4));
        return { ok: false, code: "DUPLICATE", existing, window, keyWindows };
      }
      return { ok: false, code: "INSUFFICIENT_BALANCE", window, keyWindows };
    },

    /**
     * A `registered` that finds the reservation already failed (the reaper released it before this
     * finalize landed) charges the served request anyway: a second script call moves the record to a new
     * registered reservation (finalize.lua, "late-registered"), and `r` then names that one, so a
     * provider breaking off its body afterwards releases the charge as it would have released the original.
     * Rare, so the common path pays nothing for it.
     */
    async finalize(
      r: ReservationHandle,
      outcome: FinalizeOutcome,
      facts: ServedFacts = {},
    ): Promise<FinalizeResult> {
      const move = async (item: Parameters<typeof finalizeScript.item>[0]): Promise<FinalizeResult> => {
        const reply = await batcher.add("finalize", r.partyId, r.recordKey, finalizeScript.item(item));
        if (reply[0] === "OK") return { ok: true };
        return reply[1] !== undefined
          ? { ok: false, code: "NOT_IN_FLIGHT", status: String(reply[1]) }
          : { ok: false, code: "NOT_FOUND" };
      };
      // The facts named one by one, not spread (why: reserve, above).
      const { httpStatus, upstreamMs, path } = facts;
      const done = await move({ outcome, expectedId: r.id, httpStatus, upstreamMs, path });
      if (outcome !== "registered" || done.ok || done.status !== "failed") return done;
      const charge = newId("reservation");
      const late = await move({
        outcome: "late-registered",
        expectedId: r.id,
        newId: charge,
        httpStatus,
        upstreamMs,
        path,
      });
      if (!late.ok) return late;
      r.id = charge;
      return { ok: true, lateCharge: charge };
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
