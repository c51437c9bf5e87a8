import { type IssuedKey, issueApiKey } from "@stake/db/api-key";
import { newId } from "@stake/db/ids";
import { AppError } from "../../errors.ts";
import { recordAudit } from "../../platform/audit.ts";
import { lockOwnerCap } from "../../platform/owner-cap.ts";
import type { AccountContext, GatewayAccountDeps } from "./context.ts";
import { tellDeactivated } from "./deactivation.ts";
import { capInCoins, capInUnits, readKeyCounters } from "./keys-service.ts";
import { createGatewayAccountRepo, type GatewayAccountRepo } from "./repo.ts";
import type { CreateKeyRequest } from "./schemas.ts";

type KeyRow = Awaited<ReturnType<GatewayAccountRepo["listKeys"]>>[number];
const iso = (d: Date | null | undefined) => d?.toISOString() ?? null;

/** A key as listed: its budget, and its last use from the gateway's counters. */
function presentKey(k: KeyRow, lastUsed: number | null | undefined) {
  return {
    id: k.id,
    start: k.start,
    label: k.label,
    active: k.active,
    expiresAt: iso(k.expiresAt),
    createdAt: k.createdAt.toISOString(),
    deactivatedAt: iso(k.deactivatedAt),
    limits: k.limits,
    spendCaps: { daily: capInCoins(k.dailySpendCap), monthly: capInCoins(k.monthlySpendCap) },
    lastUsedAt: lastUsed ? new Date(lastUsed).toISOString() : null,
    rotatedAt: iso(k.rotatedAt),
    previousKeyExpiresAt: iso(k.previousHashExpiresAt),
  };
}

/** The row of a new key from its request (`input` may be absent: a key without limits or caps). */
function newKeyRow(userId: string, issued: IssuedKey, input: CreateKeyRequest) {
  return {
    id: newId("gatewayKey"),
    userId,
    hash: issued.hash,
    start: issued.start,
    label: input?.label ?? null,
    expiresAt: input?.expiresAt ? new Date(input.expiresAt) : null,
    limits: input?.limits ?? [],
    dailySpendCap: capInUnits(input?.spendCaps?.daily ?? null),
    monthlySpendCap: capInUnits(input?.spendCaps?.monthly ?? null),
  };
}

/** The new key as answered once, its secret included. */
function presentNewKey(key: KeyRow | null | undefined, issued: IssuedKey) {
  return {
    id: key?.id,
    key: issued.key,
    start: issued.start,
    label: key?.label ?? null,
    expiresAt: key?.expiresAt?.toISOString() ?? null,
    createdAt: key?.createdAt.toISOString(),
    limits: key?.limits ?? [],
    spendCaps: {
      daily: capInCoins(key?.dailySpendCap ?? null),
      monthly: capInCoins(key?.monthlySpendCap ?? null),
    },
  };
}

/** The user's keys: listed with their budgets, created (audited) and deactivated (audited and told). */
export function createGatewayUserKeyService(deps: GatewayAccountDeps, ctx: AccountContext) {
  const { repo, redis, keys } = deps;
  return {
    /** Each key with its budget, and its last use from the gateway's counters (no Postgres write per request). */
    async keys(userId: string) {
      const [rows, party] = await Promise.all([repo.listKeys(userId), repo.findPartyOfUser(userId)]);
      const ids = rows.map((k) => k.id);
      const counters = party ? await readKeyCounters(redis, keys, party.id, ids) : new Map();
      return { keys: rows.map((k) => presentKey(k, counters.get(k.id)?.lastUsed)) };
    },

    async createKey(userId: string, input: CreateKeyRequest = undefined) {
      await ctx.existingUser(userId);
      const issued = issueApiKey("gateway");
      // The audit row in the creation's transaction: the key exists on record exactly when it exists.
      const key = await deps.db.transaction(async (tx) => {
        const r = createGatewayAccountRepo(tx);
        await lockOwnerCap(tx, "gateway_api_keys", userId);
        const active = (await r.listKeys(userId)).filter((k) => k.active).length;
        if (active >= deps.maxActiveKeys) {
          throw new AppError(
            "GATEWAY_KEY_LIMIT_REACHED",
            `You already have ${deps.maxActiveKeys} active API keys; deactivate one first`,
          );
        }
        const key = await r.insertKey(newKeyRow(userId, issued, input));
        const { start, label, expiresAt, limits, dailySpendCap, monthlySpendCap } = key!;
        await recordAudit(tx, {
          actor: { kind: "user", id: userId },
          action: "gateway_key.create",
          target: key!.id,
          after: { start, label, expiresAt, limits, dailySpendCap, monthlySpendCap },
        });
        return key;
      });
      return presentNewKey(key, issued);
    },

    /** Idempotent: an already deactivated key is answered as it is, and told of only the first time. */
    async deactivateKey(userId: string, keyId: string) {
      const key = await deps.db.transaction(async (tx) => {
        const r = createGatewayAccountRepo(tx);
        const rows = await r.deactivateKeyOfUser(userId, keyId);
        const [key] = await tellDeactivated(tx, rows, { kind: "user", id: userId });
        return key ?? (await r.findKeyOfUser(userId, keyId));
      });
      if (!key) throw new AppError("GATEWAY_KEY_NOT_FOUND", "API key not found");
      await ctx.invalidate(userId);
      return { id: key.id, active: false, deactivatedAt: key.deactivatedAt?.toISOString() };
    },
  };
}
