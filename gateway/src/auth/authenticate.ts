import { hashApiKey, isKeyShaped } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { gatewayApiKeys, parties } from "@stake/db/schema/index";
import { eq } from "drizzle-orm";
import type { ReadThroughCache } from "./cache.ts";

/** The party's spend caps, coin base units (null: none). */
export interface SpendCaps {
  dailyCap: bigint | null;
  monthlyCap: bigint | null;
}

export type KeyRecord =
  | { found: false }
  | ({
      found: true;
      keyId: string;
      active: boolean;
      partyId: string | null;
      /** ms since epoch (null: never). */
      expiresAt: number | null;
    } & SpendCaps);

export type AuthResult =
  | ({ ok: true; keyId: string; partyId: string } & SpendCaps)
  | { ok: false; code: "UNAUTHORIZED" | "KEY_INACTIVE" | "NO_PARTY" };

/** Key hash → key record and the owner's party (one indexed join), for the cache loader. */
export function createKeyLookup(db: Db) {
  return async (hash: string): Promise<KeyRecord> => {
    const [row] = await db
      .select({
        keyId: gatewayApiKeys.id,
        active: gatewayApiKeys.active,
        partyId: parties.id,
        dailyCap: parties.dailySpendCap,
        monthlyCap: parties.monthlySpendCap,
        expiresAt: gatewayApiKeys.expiresAt,
      })
      .from(gatewayApiKeys)
      .leftJoin(parties, eq(parties.userId, gatewayApiKeys.userId))
      .where(eq(gatewayApiKeys.hash, hash))
      .limit(1);
    if (!row) return { found: false };
    const cap = (v: string | null) => (v === null ? null : BigInt(v));
    return {
      found: true,
      ...row,
      dailyCap: cap(row.dailyCap),
      monthlyCap: cap(row.monthlyCap),
      expiresAt: row.expiresAt?.getTime() ?? null,
    };
  };
}

/** Stage 1: `x-gateway-api-key` → SHA-256 → cached record → party (spec auth rules: 401, 403, 403). */
export async function authenticate(
  raw: string | null | undefined,
  keys: ReadThroughCache<KeyRecord>,
): Promise<AuthResult> {
  if (typeof raw !== "string" || !isKeyShaped("gateway", raw)) return { ok: false, code: "UNAUTHORIZED" };
  const record = await keys.get(hashApiKey(raw));
  if (!record.found) return { ok: false, code: "UNAUTHORIZED" };
  // An expired key is an inactive one (the spec's 403); checked on every request, so the cache cannot
  // stretch its life.
  if (!record.active || (record.expiresAt !== null && Date.now() >= record.expiresAt))
    return { ok: false, code: "KEY_INACTIVE" };
  if (!record.partyId) return { ok: false, code: "NO_PARTY" };
  return {
    ok: true,
    keyId: record.keyId,
    partyId: record.partyId,
    dailyCap: record.dailyCap,
    monthlyCap: record.monthlyCap,
  };
}
