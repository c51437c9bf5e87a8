import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import type { Redis } from "@stake/db/redis/client";
import { invalidation } from "@stake/db/redis/invalidation";
import type { RedisKeys } from "@stake/db/redis/keys";
import { spendWindows } from "@stake/db/redis/scripts";
import { AppError } from "../../errors.ts";
import { recordAudit } from "../../platform/audit.ts";
import { createGatewayAccountRepo, type GatewayAccountRepo } from "./repo.ts";
import {
  DEFAULT_ROTATION_GRACE_SECONDS,
  type KeyLimitsRequest,
  type RotateKeyRequest,
  type SpendCapsRequest,
} from "./schemas.ts";

/** A cap as stored (base units, numeric → string) → coins, and back; null: none. */
export const capInCoins = (v: string | null) => (v === null ? null : formatCoins(BigInt(v)));
export const capInUnits = (v: string | null) => (v === null ? null : coinsToBaseUnits(v).toString());

/**
 * What reserve.lua counted for some of a party's keys, from the party's account hash
 * (`gw:{party}:acct`, db/src/redis/lua/reserve.lua): each key's last use (ms) and its spend in the current
 * UTC day and month (base units; a counter for an earlier window is 0). One HMGET for all of them.
 */
export async function readKeyCounters(redis: Redis, keys: RedisKeys, partyId: string, keyIds: string[]) {
  const out = new Map<string, { lastUsed: number | null; day: bigint; month: bigint }>();
  if (keyIds.length === 0) return out;
  const w = spendWindows(Date.now());
  const fields = keyIds.flatMap((id) => [`${id}:u`, `${id}:d`, `${id}:dv`, `${id}:m`, `${id}:mv`]);
  const values = await redis.hmget(keys.gateway.account(partyId), ...fields);
  keyIds.forEach((id, i) => {
    const [used, day, dayValue, month, monthValue] = values.slice(5 * i, 5 * i + 5);
    out.set(id, {
      lastUsed: used ? Number(used) : null,
      day: day === w.day ? BigInt(dayValue ?? "0") : 0n,
      month: month === w.month ? BigInt(monthValue ?? "0") : 0n,
    });
  });
  return out;
}

/**
 * A gateway key's own budget and its rotation: named limits, daily and monthly spend
 * caps, and a new secret with a grace window for the old one. Every change is followed by the
 * invalidation message, so every gateway drops its cached key record within the pub/sub delivery time.
 */
export function createGatewayKeyService(deps: {
  db: Db;
  repo: GatewayAccountRepo;
  redis: Redis;
  keys: RedisKeys;
}) {
  const { db, repo, redis, keys } = deps;
  const invalidate = (keyId: string) => redis.publish(keys.gateway.invalidations, invalidation.key(keyId));
  const notFound = () => new AppError("GATEWAY_KEY_NOT_FOUND", "API key not found");

  async function spendCaps(
    userId: string,
    key: { id: string; dailySpendCap: string | null; monthlySpendCap: string | null },
  ) {
    const party = await repo.findPartyOfUser(userId);
    const spent = party && (await readKeyCounters(redis, keys, party.id, [key.id])).get(key.id);
    return {
      daily: capInCoins(key.dailySpendCap),
      monthly: capInCoins(key.monthlySpendCap),
      spentToday: formatCoins(spent?.day ?? 0n),
      spentThisMonth: formatCoins(spent?.month ?? 0n),
    };
  }

  return {
    /**
     * A new secret for a key that still works; the old one keeps working `graceSeconds` (bounded by
     * MAX_ROTATION_GRACE_SECONDS), then the gateway refuses it (403, KEY_ROTATED). The key keeps its id,
     * label, limits, caps and usage. Rotating again within a grace ends that grace at once: one previous
     * secret at most. One statement, so the audit log can join it in one transaction.
     */
    async rotateKey(userId: string, keyId: string, input: RotateKeyRequest) {
      const issued = issueApiKey("gateway");
      const at = new Date();
      const grace = input?.graceSeconds ?? DEFAULT_ROTATION_GRACE_SECONDS;
      const graceUntil = new Date(at.getTime() + grace * 1000);
      // The audit row in the rotation's transaction: a rotation is on record exactly when it happened.
      const key = await db.transaction(async (tx) => {
        const key = await createGatewayAccountRepo(tx).rotateKey(userId, keyId, {
          hash: issued.hash,
          start: issued.start,
          graceUntil,
          at,
        });
        if (key)
          await recordAudit(tx, {
            actor: { kind: "user", id: userId },
            action: "gateway_key.rotate",
            target: key.id,
            after: { start: issued.start, previousKeyExpiresAt: graceUntil.toISOString() },
          });
        return key;
      });
      if (!key) {
        if (!(await repo.findKeyOfUser(userId, keyId))) throw notFound();
        throw new AppError("GATEWAY_KEY_INACTIVE", "API key is deactivated or expired");
      }
      await invalidate(key.id);
      return {
        id: key.id,
        key: issued.key,
        start: issued.start,
        rotatedAt: at.toISOString(),
        previousKeyExpiresAt: graceUntil.toISOString(),
      };
    },

    /**
     * Replaces the key's named limits. A limit kept by name keeps its current window (re-saving cannot
     * reset a count); the counters of a dropped name are deleted from the party's hash.
     */
    async setLimits(userId: string, keyId: string, input: KeyLimitsRequest) {
      const key = await repo.updateKeyBudget(userId, keyId, { limits: input.limits });
      if (!key) throw notFound();
      const party = await repo.findPartyOfUser(userId);
      if (party) {
        const hash = keys.gateway.account(party.id);
        const kept = new Set(input.limits.map((l) => l.name));
        const stale = (await redis.hkeys(hash)).filter((f) => {
          const m = /^[^:]+:[le]:(.+)$/.exec(f);
          return f.startsWith(`${keyId}:`) && m !== null && !kept.has(m[1] as string);
        });
        if (stale.length) await redis.hdel(hash, ...stale);
      }
      await invalidate(key.id);
      return { id: key.id, limits: key.limits };
    },

    /** The key's spend caps and what they count so far (the gateway's counters in Redis). */
    async spendCaps(userId: string, keyId: string) {
      const key = await repo.findKeyOfUser(userId, keyId);
      if (!key) throw notFound();
      return spendCaps(userId, key);
    },

    /** Sets both of the key's caps (null: none), applied within the party's own caps. */
    async setSpendCaps(userId: string, keyId: string, input: SpendCapsRequest) {
      const key = await repo.updateKeyBudget(userId, keyId, {
        dailySpendCap: capInUnits(input.daily),
        monthlySpendCap: capInUnits(input.monthly),
      });
      if (!key) throw notFound();
      await invalidate(key.id);
      return spendCaps(userId, key);
    },
  };
}

export type GatewayKeyService = ReturnType<typeof createGatewayKeyService>;
