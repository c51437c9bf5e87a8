import { createHash } from "node:crypto";
import { Command } from "ioredis";
import type { Redis } from "./client.ts";
import type { RedisKeys } from "./keys.ts";
import { luaScript } from "./lua.ts";

/**
 * The one registry of the Lua scripts: each script's KEYS/ARGV layout (see the header of its file) is
 * written here once, and every caller, the gateway's per-turn batches included, calls through `runScript`.
 */
export interface Script {
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

function load(name: string): Script {
  const lua = luaScript(name);
  return { name, lua, sha: createHash("sha1").update(lua).digest("hex") };
}

/** A client, or its corked stream's owner: only raw commands are sent. */
export type ScriptClient = Pick<Redis, "sendCommand">;

/**
 * A command whose arguments are sent as given. ioredis passes every command's arguments through
 * `Array.prototype.flat()`, which costs 44 µs per 200 arguments (measured; a copy costs 0.2 µs), and a
 * gateway turn's batch carries hundreds of them, all strings already.
 */
class FlatCommand extends Command {
  constructor(name: string, args: string[]) {
    super(name, [], { replyEncoding: "utf8" });
    this.args = args;
  }
}

/** EVALSHA, and EVAL with the source once if this Redis has not seen the script (NOSCRIPT). */
export function runScript<T>(
  redis: ScriptClient,
  script: Script,
  keys: readonly string[],
  args: readonly string[],
): Promise<T> {
  const command = [script.sha, String(keys.length), ...keys, ...args];
  const send = (name: string) => {
    const sent = new FlatCommand(name, command);
    redis.sendCommand(sent);
    return sent.promise as Promise<T>;
  };
  return send("evalsha").catch((err: Error) => {
    if (!err.message.includes("NOSCRIPT")) throw err;
    // The same arguments, the script's source in place of its digest (the first call is over with them).
    command[0] = script.lua;
    return send("eval");
  });
}

/**
 * A script that takes a batch of one party's reservations: KEYS = `head` then one record key per item,
 * ARGV = `shared` then each item's args. It answers one reply per item, then `["MARK"]` when it appended
 * to the party's empty event stream (the caller then adds the party to the dirty set). `shared` starts with
 * the call's time, and names the UTC day and month of it: the spend counters the call moves are those of
 * the windows its records' `t` falls in.
 */
export interface BatchScript<Shared extends [now: number, ...rest: unknown[]], Item> {
  script: Script;
  head(keys: RedisKeys, partyId: string, now: number): string[];
  shared(...values: Shared): string[];
  item(item: Item): string[];
}

const DAY_MS = 86_400_000;

/** Characters of a request's path kept for the request log (reservations.path). */
export const RESERVATION_PATH_MAX = 256;

/** The UTC day a time falls in and what follows from it; see spendWindows. */
interface UtcDay {
  start: number;
  end: number;
  monthStart: number;
  monthEnd: number;
  day: string;
  month: string;
}
let today: UtcDay | undefined;

/**
 * The UTC day and month a time falls in, as the spend counters name them, and when each starts and ends.
 * Every reserve and finalize batch asks: the calendar work is done once per UTC day.
 */
export function spendWindows(now: number) {
  let d = today;
  if (!d || now < d.start || now >= d.end) {
    const at = new Date(now);
    const start = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
    const iso = at.toISOString();
    d = {
      start,
      end: start + DAY_MS,
      monthStart: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1),
      monthEnd: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1),
      day: iso.slice(0, 10),
      month: iso.slice(0, 7),
    };
    today = d;
  }
  return {
    day: d.day,
    month: d.month,
    dayStart: d.start,
    dayEnd: d.end,
    monthStart: d.monthStart,
    monthEnd: d.monthEnd,
    dayLeftMs: d.end - now,
    monthLeftMs: d.monthEnd - now,
  };
}

/**
 * The party's hash (its balance, what it reserved, its spend, request and failure counters, and its
 * keys'), its event stream.
 */
const partyHead = (k: RedisKeys, partyId: string) => [
  k.gateway.account(partyId),
  k.gateway.reservationLog(partyId),
];

export interface ReserveItem {
  cost: bigint;
  id: string;
  idempotencyKey: string;
  providerKey: string;
  costInUsd: string;
  /** The record key's tail, `scopeHash(providerKey, idempotencyKey)`. */
  scope: string;
  /** The API key the request came with, kept for the usage roll-up ("" when none: a tool's). */
  keyId: string;
  /** The party's and the key's caps and the key's limits, as `encodeBudget` writes them ("" or absent: none). */
  budget?: string | undefined;
}

/** What reserve.lua holds a request to beyond the party's balance and request limit. */
export interface Budget {
  /** The party's spend caps per UTC day and month, coin base units (null: none). */
  dailyCap?: bigint | null;
  monthlyCap?: bigint | null;
  /** The key's own spend caps, the same way. */
  keyDailyCap?: bigint | null;
  keyMonthlyCap?: bigint | null;
  /** The key's named request limits. */
  keyLimits?: readonly { name: string; requests: number; windowSeconds: number }[];
}

const capArg = (cap: bigint | null | undefined) => (cap == null ? "" : cap.toString());

/**
 * A budget as one reserve.lua argument, `<daily>|<monthly>|<key daily>|<key monthly>|<name:requests:windowMs;...>`,
 * or "" when there is none (the common case, which the script then skips): encoded once per key record,
 * not per request. Limit names are `[a-z0-9_-]` (the account API's schema), so no separator occurs in one.
 */
export function encodeBudget(b: Budget): string {
  const limits = (b.keyLimits ?? [])
    .map((l) => `${l.name}:${l.requests}:${l.windowSeconds * 1000}`)
    .join(";");
  const text = [b.dailyCap, b.monthlyCap, b.keyDailyCap, b.keyMonthlyCap].map(capArg).join("|");
  return text === "|||" && !limits ? "" : `${text}|${limits}`;
}

/** The per-party request limit reserve.lua enforces: `limit` requests per `windowMs` (limit 0 = none). */
export interface PartyRateLimit {
  limit: number;
  windowMs: number;
}

/**
 * The per-party limit on failed reservations: past `limit` failures within `windowMs` (counted by
 * finalize.lua from the first one), reserve.lua refuses the party's requests until the window ends.
 * `unansweredTtlSeconds`: how long the record of a request that failed before any provider byte keeps its
 * idempotency key. limit 0 = no limit.
 */
export interface PartyFailureLimit {
  limit: number;
  windowMs: number;
  unansweredTtlSeconds: number;
}

/**
 * reserve.lua: per-party request and failure limits + per-key named limits + party and key spend caps +
 * duplicate check + balance check + reservation; records the key's last use.
 */
export const reserveScript: BatchScript<
  [now: number, rate: PartyRateLimit, failures: PartyFailureLimit],
  ReserveItem
> = {
  script: load("reserve"),
  head: (k, partyId) => partyHead(k, partyId),
  shared: (now, rate, failures) => {
    const w = spendWindows(now);
    return [
      String(now),
      String(rate.limit),
      String(rate.windowMs),
      String(failures.limit),
      w.day,
      w.month,
      String(w.dayLeftMs),
      String(w.monthLeftMs),
    ];
  },
  item: (i) => [
    i.cost.toString(),
    i.id,
    i.idempotencyKey,
    i.providerKey,
    i.costInUsd,
    i.scope,
    i.keyId,
    i.budget ?? "",
  ],
};

/**
 * finalize.lua: request_in_flight → registered | failed (| "failed-unanswered": failed before any provider
 * byte, its record kept `failures.unansweredTtlSeconds`); registered → failed ("failed-mid-body"); failed →
 * a new registered reservation `newId` ("late-registered": served after the reaper released it). A failed
 * record expires `ttlSeconds` later. Failures count towards the party's failure limit unless `failures`
 * is null (the reaper: the gateway died, not the party's doing).
 */
export const finalizeScript: BatchScript<
  [now: number, ttlSeconds: number, failures: PartyFailureLimit | null],
  {
    outcome: "registered" | "failed" | "failed-unanswered" | "failed-mid-body" | "late-registered";
    expectedId: string;
    newId?: string | undefined;
    /** The HTTP status the client got (0 or absent: none, e.g. it left first). */
    httpStatus?: number | undefined;
    /** The provider's latency to its response headers, ms (absent: it did not answer). */
    upstreamMs?: number | undefined;
    /** The path asked of the provider, without its query (absent: unknown, the reaper's). */
    path?: string | undefined;
  }
> = {
  script: load("finalize"),
  head: (k, partyId) => partyHead(k, partyId),
  shared: (now, ttlSeconds, failures) => {
    const w = spendWindows(now);
    return [
      String(now),
      String(ttlSeconds),
      String(failures?.unansweredTtlSeconds ?? ttlSeconds),
      String(failures?.windowMs ?? 0),
      w.day,
      w.month,
      String(w.dayStart),
      String(w.dayEnd),
      String(w.monthStart),
      String(w.monthEnd),
    ];
  },
  item: (i) => [
    i.outcome,
    i.expectedId,
    i.newId ?? "",
    i.httpStatus ? String(i.httpStatus) : "",
    i.upstreamMs === undefined ? "" : String(i.upstreamMs),
    // Bounded here, the one place every finalize passes: a long path must not grow each stream event.
    (i.path ?? "").slice(0, RESERVATION_PATH_MAX),
  ],
};

/** settle.lua: registered → settled with `balance −= cost, reserved −= cost`; the record expires `ttlSeconds` later. */
export const settleScript: BatchScript<[now: number, ttlSeconds: number], { id: string }> = {
  script: load("settle"),
  head: (k, partyId) => [k.gateway.account(partyId)],
  shared: (now, ttlSeconds) => [String(now), String(ttlSeconds)],
  item: (i) => [i.id],
};

/** Runs one batch script call for one party: one reply per item (plus `["MARK"]`, see BatchScript). */
export function runBatch<Shared extends [now: number, ...rest: unknown[]], Item>(
  redis: ScriptClient,
  layout: BatchScript<Shared, Item>,
  keys: RedisKeys,
  partyId: string,
  shared: Shared,
  items: readonly { key: string; item: Item }[],
): Promise<string[][]> {
  const k = layout.head(keys, partyId, shared[0]);
  const args = layout.shared(...shared);
  for (const { key, item } of items) {
    k.push(key);
    for (const a of layout.item(item)) args.push(a);
  }
  return runScript<string[][]>(redis, layout.script, k, args);
}

/** True when a batch reply asks the caller to mark the party dirty (a reply past the items). */
export const repliesMark = (replies: readonly unknown[], items: number) => replies.length > items;

const credit = load("credit");
/** credit.lua: applies one ledger credit to the balance once. Returns [outcome, balance]. */
export function runCredit(
  redis: ScriptClient,
  keys: RedisKeys,
  input: { partyId: string; entryId: string; amount: string },
): Promise<[outcome: "OK" | "ALREADY_APPLIED", balance: string]> {
  return runScript(
    redis,
    credit,
    [keys.gateway.account(input.partyId), keys.gateway.applied(input.partyId)],
    [input.entryId, input.amount],
  );
}

const hyperliquidNonce = load("hyperliquid-nonce");
/** hyperliquid-nonce.lua: the next nonce for one delegator address. */
export async function runHyperliquidNonce(
  redis: ScriptClient,
  keys: RedisKeys,
  input: { address: string; nowMs: number; ttlMs: number },
): Promise<number> {
  const nonce = await runScript<number>(
    redis,
    hyperliquidNonce,
    [keys.hyperliquidNonce(input.address)],
    [String(input.nowMs), String(input.ttlMs)],
  );
  return Number(nonce);
}

const lease = load("lease");
/**
 * lease.lua: renews (for `ttlMs`) or releases a party's settlement lease if `token` still holds it.
 * Returns whether it did.
 */
export async function runLease(
  redis: ScriptClient,
  keys: RedisKeys,
  input: { partyId: string; token: string } & ({ op: "renew"; ttlMs: number } | { op: "release" }),
): Promise<boolean> {
  const ttl = input.op === "renew" ? String(input.ttlMs) : "";
  const held = await runScript<number>(
    redis,
    lease,
    [keys.gateway.settleLease(input.partyId)],
    [input.op, input.token, ttl],
  );
  return held === 1;
}
