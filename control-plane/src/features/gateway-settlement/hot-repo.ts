import { type Redis, scanKeys } from "@stake/db/redis/client";
import { type RedisKeys, scopeHash } from "@stake/db/redis/keys";
import { type BatchScript, finalizeScript, runBatch, runCredit, settleScript } from "@stake/db/redis/scripts";
import { OPEN_STATUSES, type Status } from "./types.ts";

/**
 * Redis side of settlement: the hot copy the gateway reserves against (balances, reservation records,
 * event streams, the dirty set), reached only through the script registry and these functions.
 */

export interface RecordRef {
  id: string;
  providerKey: string;
  idempotencyKey: string;
}

const recordKey = (keys: RedisKeys, partyId: string, r: Pick<RecordRef, "providerKey" | "idempotencyKey">) =>
  keys.gateway.reservation(partyId, scopeHash(r.providerKey, r.idempotencyKey));

/** The oldest `count` events of a party's stream (after the id `after`, if given): id and field map. */
export async function readEvents(
  redis: Redis,
  keys: RedisKeys,
  partyId: string,
  count: number,
  after?: string,
) {
  const start = after === undefined ? "-" : `(${after}`;
  const entries = await redis.xrange(keys.gateway.reservationLog(partyId), start, "+", "COUNT", count);
  return entries.map(([id, flat]) => {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
    return { id, fields };
  });
}

/** The stream id just after `id`, for XTRIM MINID (which keeps ids ≥ the given one). */
function nextStreamId(id: string): string {
  const [ms, seq] = id.split("-");
  return `${ms}-${BigInt(seq ?? "0") + 1n}`;
}

/** Drops the party's events up to and including `lastId`. */
export async function trimEvents(redis: Redis, keys: RedisKeys, partyId: string, lastId: string) {
  await redis.xtrim(keys.gateway.reservationLog(partyId), "MINID", nextStreamId(lastId));
}

export const eventCount = (redis: Redis, keys: RedisKeys, partyId: string) =>
  redis.xlen(keys.gateway.reservationLog(partyId));

/** The dirty set, sharded in buckets: written once in db/src/redis/settle-dirty.ts, which the gateway shares. */
export { isDirty, markDirty, sampleDirty, unmarkDirty } from "@stake/db/redis/settle-dirty";

/** One batch script over a party's reservation records, with `now` and the closed records' TTL. */
function overRecords<S extends [number, number, ...unknown[]], I>(
  script: BatchScript<S, I>,
  itemOf: (r: RecordRef) => I,
  rest: S extends [number, number, ...infer R] ? R : never,
) {
  return (
    redis: Redis,
    keys: RedisKeys,
    partyId: string,
    rows: RecordRef[],
    now: number,
    ttlSeconds: number,
  ) =>
    runBatch(
      redis,
      script,
      keys,
      partyId,
      [now, ttlSeconds, ...rest] as unknown as S,
      rows.map((r) => ({ key: recordKey(keys, partyId, r), item: itemOf(r) })),
    );
}

/** settle.lua for a batch of one party's reservations: one [outcome, status?] per row. */
export const settleRecords = overRecords(settleScript, (r) => ({ id: r.id }), []);

/**
 * finalize.lua `failed` for reservations left in flight (only an in-flight one moves): one reply per row.
 * Not counted towards the party's failure limit: their gateway died, the party did nothing.
 */
export const failInFlight = overRecords(
  finalizeScript,
  (r) => ({ outcome: "failed" as const, expectedId: r.id }),
  [null],
);

/** Applies a credit entry to the party's balance once (credit.lua). */
export async function applyCredit(
  redis: Redis,
  keys: RedisKeys,
  entry: { partyId: string; id: string; amount: string },
) {
  const [outcome, balance] = await runCredit(redis, keys, {
    partyId: entry.partyId,
    entryId: entry.id,
    amount: entry.amount,
  });
  return { applied: outcome === "OK", balance: BigInt(balance ?? "0") };
}

/** The hot balance of a party in base units. */
export async function readBalance(redis: Redis, keys: RedisKeys, partyId: string) {
  const [balance, reserved] = await redis.hmget(keys.gateway.account(partyId), "balance", "reserved");
  return { balance: BigInt(balance ?? "0"), reserved: BigInt(reserved ?? "0") };
}

/**
 * Replaces the party's balance, what it reserved and its applied-credit set in one MULTI. The account
 * hash's counters (spend caps, request and failure windows) are kept: Postgres does not hold them.
 */
export async function writeAccount(
  redis: Redis,
  keys: RedisKeys,
  partyId: string,
  state: { balance: bigint; reserved: bigint; appliedCredits: string[] },
) {
  const g = keys.gateway;
  const tx = redis.multi();
  tx.del(g.applied(partyId));
  tx.hset(g.account(partyId), "balance", state.balance.toString(), "reserved", state.reserved.toString());
  if (state.appliedCredits.length) tx.sadd(g.applied(partyId), ...state.appliedCredits);
  await tx.exec();
}

/**
 * Rewrites reservation records exactly as reserve/finalize/settle leave them: an open one never expires,
 * a closed one `ttlSeconds` after it closed.
 */
export async function writeRecords(
  redis: Redis,
  keys: RedisKeys,
  partyId: string,
  rows: (RecordRef & {
    costInUsd: string;
    cost: string;
    status: string;
    keyId?: string | null;
    createdAt: Date;
    updatedAt: Date;
  })[],
  ttlSeconds: number,
) {
  const pipe = redis.pipeline();
  for (const r of rows) {
    const key = recordKey(keys, partyId, r);
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
      // The key id, as reserve.lua wrote it (finalize.lua copies it into its events for the usage roll-up).
      // The spend counters are not rebuilt: a lost Redis starts the day's and month's afresh.
      a: r.keyId ?? "",
    });
    if (!OPEN_STATUSES.includes(r.status as Status))
      pipe.pexpireat(key, r.updatedAt.getTime() + ttlSeconds * 1000);
  }
  for (const [err] of (await pipe.exec()) ?? []) if (err) throw err;
}

/** Every reservation record Redis holds for the party: id, status and cost. */
export async function scanRecords(redis: Redis, keys: RedisKeys, partyId: string) {
  const found: { id: string; status: string; cost: string }[] = [];
  const all = await scanKeys(redis, keys.gateway.reservation(partyId, "*"), 5000);
  for (let at = 0; at < all.length; at += 5000) {
    const pipe = redis.pipeline();
    for (const k of all.slice(at, at + 5000)) pipe.hmget(k, "id", "s", "c");
    for (const [err, reply] of (await pipe.exec()) ?? []) {
      if (err) throw err;
      const [id, status, cost] = reply as (string | null)[];
      if (id && status) found.push({ id, status, cost: cost ?? "0" });
    }
  }
  return found;
}

export async function appliedCredits(redis: Redis, keys: RedisKeys, partyId: string): Promise<string[]> {
  return redis.smembers(keys.gateway.applied(partyId));
}
