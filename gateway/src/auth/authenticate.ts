import { hashApiKey, isKeyShaped } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { invalidation } from "@stake/db/redis/invalidation";
import { encodeBudget } from "@stake/db/redis/scripts";
import { gatewayApiKeys, parties } from "@stake/db/schema/index";
import { eq, or } from "drizzle-orm";
import { type KeyPolicy, keyPolicyOf } from "../billing/limit-headers.ts";
import type { ReadThroughCache } from "./cache.ts";

/**
 * What reserve.lua and the RateLimit fields take of a key beyond its identity, built once when the record is
 * loaded (not per request): the party's and the key's spend caps and the key's named limits as the
 * script's one budget argument (`encodeBudget`, "" when none), and the limits' RateLimit-Policy items
 * (null: no limits).
 */
export interface KeyBudget {
  script: string;
  policy: KeyPolicy | null;
}

export type KeyRecord =
  | { found: false }
  | {
      found: true;
      keyId: string;
      /** The key's owner: what a `user:` invalidation names (`keyTags`). */
      userId: string;
      active: boolean;
      partyId: string | null;
      /** ms since epoch (null: never). */
      expiresAt: number | null;
      /** The secret presented was the key's previous one: refused from this time on (ms; null: current). */
      rotatedOutAt: number | null;
      budget: KeyBudget;
    };

export type AuthResult =
  | { ok: true; keyId: string; partyId: string; budget: KeyBudget }
  | { ok: false; code: "UNAUTHORIZED" | "KEY_INACTIVE" | "KEY_ROTATED" | "NO_PARTY" };

const units = (v: string | null) => (v === null ? null : BigInt(v));

/**
 * Key hash → key record and the owner's party (one indexed join), for the cache loader. The hash may be
 * the key's current one or, during a rotation's grace window, its previous one (a second unique index).
 */
export function createKeyLookup(db: Db) {
  return async (hash: string): Promise<KeyRecord> => {
    const k = gatewayApiKeys;
    const [row] = await db
      .select({
        keyId: k.id,
        userId: k.userId,
        active: k.active,
        partyId: parties.id,
        dailyCap: parties.dailySpendCap,
        monthlyCap: parties.monthlySpendCap,
        expiresAt: k.expiresAt,
        hash: k.hash,
        previousHashExpiresAt: k.previousHashExpiresAt,
        limits: k.limits,
        dailySpendCap: k.dailySpendCap,
        monthlySpendCap: k.monthlySpendCap,
      })
      .from(k)
      .leftJoin(parties, eq(parties.userId, k.userId))
      .where(or(eq(k.hash, hash), eq(k.previousHash, hash)))
      .limit(1);
    if (!row) return { found: false };
    const previous = row.hash !== hash;
    return {
      found: true,
      keyId: row.keyId,
      userId: row.userId,
      active: row.active,
      partyId: row.partyId,
      expiresAt: row.expiresAt?.getTime() ?? null,
      // A previous hash without a deadline cannot be stored by the account API; refuse it rather than trust it.
      rotatedOutAt: previous ? (row.previousHashExpiresAt?.getTime() ?? 0) : null,
      budget: {
        script: encodeBudget({
          dailyCap: units(row.dailyCap),
          monthlyCap: units(row.monthlyCap),
          keyDailyCap: units(row.dailySpendCap),
          keyMonthlyCap: units(row.monthlySpendCap),
          keyLimits: row.limits,
        }),
        policy: keyPolicyOf(row.limits),
      },
    };
  };
}

/** What a cached key record is about, for the invalidations that name it (`@stake/db/redis/invalidation`). */
export const keyTags = (record: KeyRecord): string[] =>
  record.found ? [invalidation.key(record.keyId), invalidation.user(record.userId)] : [];

/**
 * Stage 1: `x-gateway-api-key` → SHA-256 → cached record → party (spec auth rules: 401, 403, 403; a
 * rotated-out secret 403 too).
 */
export async function authenticate(
  raw: string | null | undefined,
  keys: ReadThroughCache<KeyRecord>,
): Promise<AuthResult> {
  if (typeof raw !== "string" || !isKeyShaped("gateway", raw)) return { ok: false, code: "UNAUTHORIZED" };
  return authenticateHash(hashApiKey(raw), keys);
}

/**
 * The checks of stage 1 on a key already hashed: also what an upgraded connection repeats before each slice
 * and each client message, so a key deactivated, expired, rotated out or given lower caps after the
 * handshake stops its open connections as it stops new requests (docs/gateway.md, "WebSocket billing rule").
 */
export async function authenticateHash(hash: string, keys: ReadThroughCache<KeyRecord>): Promise<AuthResult> {
  const record = await keys.get(hash);
  if (!record.found) return { ok: false, code: "UNAUTHORIZED" };
  // Expiry and the end of a rotation's grace are checked on every request, so the cache cannot stretch
  // either. An expired key is an inactive one (the spec's 403).
  const now = Date.now();
  if (!record.active || (record.expiresAt !== null && now >= record.expiresAt))
    return { ok: false, code: "KEY_INACTIVE" };
  if (record.rotatedOutAt !== null && now >= record.rotatedOutAt) return { ok: false, code: "KEY_ROTATED" };
  if (!record.partyId) return { ok: false, code: "NO_PARTY" };
  return {
    ok: true,
    keyId: record.keyId,
    partyId: record.partyId,
    budget: record.budget,
  };
}
