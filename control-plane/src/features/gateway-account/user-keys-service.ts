import { issueApiKey } from "@stake/db/api-key";
import { newId } from "@stake/db/ids";
import { AppError } from "../../errors.ts";
import { recordAudit } from "../../platform/audit.ts";
import type { AccountContext, GatewayAccountDeps } from "./context.ts";
import { tellDeactivated } from "./deactivation.ts";
import { capInCoins, capInUnits, readKeyCounters } from "./keys-service.ts";
import { createGatewayAccountRepo } from "./repo.ts";
import type { CreateKeyRequest } from "./schemas.ts";

/** The user's keys: listed with their budgets, created (audited) and deactivated (audited and told). */
export function createGatewayUserKeyService(deps: GatewayAccountDeps, ctx: AccountContext) {
  const { repo, redis, keys } = deps;
  return {
    /** Each key with its budget, and its last use from the gateway's counters (no Postgres write per request). */
    async keys(userId: string) {
      const [rows, party] = await Promise.all([repo.listKeys(userId), repo.findPartyOfUser(userId)]);
      const ids = rows.map((k) => k.id);
      const counters = party ? await readKeyCounters(redis, keys, party.id, ids) : new Map();
      const iso = (d: Date | null) => d?.toISOString() ?? null;
      const list = rows.map((k) => {
        const used = counters.get(k.id)?.lastUsed;
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
          lastUsedAt: used ? new Date(used).toISOString() : null,
          rotatedAt: iso(k.rotatedAt),
          previousKeyExpiresAt: iso(k.previousHashExpiresAt),
        };
      });
      return { keys: list };
    },

    async createKey(userId: string, input: CreateKeyRequest = undefined) {
      await ctx.existingUser(userId);
      // Checked before the insert: concurrent creations may pass one each, a handful at most.
      const active = (await repo.listKeys(userId)).filter((k) => k.active).length;
      if (active >= deps.maxActiveKeys) {
        throw new AppError(
          "GATEWAY_KEY_LIMIT_REACHED",
          `You already have ${deps.maxActiveKeys} active API keys; deactivate one first`,
        );
      }
      const issued = issueApiKey("gateway");
      const key = await deps.db.transaction(async (tx) => {
        const key = await createGatewayAccountRepo(tx).insertKey({
          id: newId("gatewayKey"),
          userId,
          hash: issued.hash,
          start: issued.start,
          label: input?.label ?? null,
          expiresAt: input?.expiresAt ? new Date(input.expiresAt) : null,
          limits: input?.limits ?? [],
          dailySpendCap: capInUnits(input?.spendCaps?.daily ?? null),
          monthlySpendCap: capInUnits(input?.spendCaps?.monthly ?? null),
        });
        await recordAudit(tx, {
          actor: { kind: "user", id: userId },
          action: "gateway_key.create",
          target: key!.id,
          after: {
            start: key!.start,
            label: key!.label,
            expiresAt: key!.expiresAt,
            limits: key!.limits,
            dailySpendCap: key!.dailySpendCap,
            monthlySpendCap: key!.monthlySpendCap,
          },
        });
        return key;
      });
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
