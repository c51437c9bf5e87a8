import { randomBytes } from "node:crypto";
import { hashApiKey, issueApiKey } from "@stake/db/api-key";
import type { Db, DbOrTx } from "@stake/db/client";
import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import type { Redis } from "@stake/db/redis/client";
import { invalidation } from "@stake/db/redis/invalidation";
import type { RedisKeys } from "@stake/db/redis/keys";
import { OPERATOR, recordAudit } from "../../platform/audit.ts";
import { creditParty, readBalance } from "../gateway-settlement/funding.ts";
import { tellDeactivated } from "./deactivation.ts";
import { capInCoins, readKeyCounters } from "./keys-service.ts";
import { createGatewayOperatorRepo, type ProviderRow, type ProviderStatus } from "./operator-repo.ts";
import { createGatewayAccountRepo } from "./repo.ts";

export type { ProviderRow, ProviderStatus } from "./operator-repo.ts";

/**
 * What the operator does to gateway state: providers, the coin rate, funding, key deactivation, and a
 * funded account in one call (the demo seed, the benchmark and the tests' fixtures). Every change that a
 * gateway caches is followed by an invalidation message naming it (`@stake/db/redis/invalidation`), so
 * each gateway drops that key, user's keys, provider or rate within a second. Each change is audited in its own transaction (platform/audit.ts).
 */
export function createGatewayOperatorService(deps: { db: Db; redis: Redis; keys: RedisKeys }) {
  const { db, redis, keys } = deps;
  const repo = createGatewayOperatorRepo(db);
  const accounts = createGatewayAccountRepo(db);
  /** Drops everything every gateway caches: a recovery step (`invalidation.all`). */
  const invalidate = () => redis.publish(keys.gateway.invalidations, invalidation.all);
  /** `value`, after telling the gateways to drop what `message` names, when there was a change. */
  const changed = async <T>(message: string, value: T) => {
    if (value) await redis.publish(keys.gateway.invalidations, message);
    return value;
  };
  /** `fn` on one transaction: the change and its audit entry commit together or not at all. */
  const audited = <T>(fn: (r: ReturnType<typeof createGatewayOperatorRepo>, tx: DbOrTx) => Promise<T>) =>
    db.transaction((tx) => fn(createGatewayOperatorRepo(tx), tx));

  /** A new key of the user, the user's earlier keys deactivated, audited. */
  const freshKey = async (userId: string) => {
    const issued = issueApiKey("gateway");
    const key = await audited(async (r, tx) => {
      await tellDeactivated(tx, await r.deactivateKeysOfUser(userId), OPERATOR);
      const key = (await createGatewayAccountRepo(tx).insertKey({
        id: newId("gatewayKey"),
        userId,
        hash: issued.hash,
        start: issued.start,
      }))!;
      await recordAudit(tx, {
        actor: OPERATOR,
        action: "gateway_key.create",
        target: key.id,
        after: { userId, start: key.start },
      });
      return key;
    });
    await redis.publish(keys.gateway.invalidations, invalidation.user(userId));
    return { id: key.id, apiKey: issued.key };
  };

  return {
    invalidate,
    /** The new provider, or null when the key is taken. */
    addProvider: async (p: { key: string; originUrl: string; costInUsd: string; status?: ProviderStatus }) =>
      changed(
        invalidation.provider(p.key),
        await audited(async (r, tx) => {
          const row = await r.insertProvider({ ...p, status: p.status ?? "active" });
          if (row) await recordAudit(tx, { ...provider("provider.create", row), after: audit(row) });
          return row;
        }),
      ),
    /** The changed provider, or null when there is none with that key. */
    updateProvider: async (
      key: string,
      set: Partial<{ originUrl: string; costInUsd: string; status: ProviderStatus }>,
    ) =>
      changed(
        invalidation.provider(key),
        await audited(async (r, tx) => {
          const before = await r.findProvider(key);
          const row = await r.updateProvider(key, set);
          if (row && before)
            await recordAudit(tx, {
              ...provider("provider.update", row),
              before: audit(before),
              after: audit(row),
            });
          return row;
        }),
      ),
    listProviders: () => repo.listProviders(),
    setCoinRate: async (usdPerCoin: string) =>
      changed(
        invalidation.rate,
        await audited(async (r, tx) => {
          const before = await r.currentCoinRate();
          const rate = await r.insertCoinRate(usdPerCoin);
          await recordAudit(tx, {
            actor: OPERATOR,
            action: "coin_rate.set",
            target: "coin_rate",
            before: before ? { usdPerCoin: before.usdPerCoin } : null,
            after: { usdPerCoin: rate.usdPerCoin },
          });
          return rate;
        }),
      ),
    currentCoinRate: () => repo.currentCoinRate(),

    /** Credits a party once per `ref` (Postgres ledger, then Redis); null when there is no such party. */
    async fundParty(input: { partyId: string; amount: bigint; ref: string }) {
      if (!(await repo.findParty(input.partyId))) return null;
      return creditParty(db, redis, keys, input);
    },

    listUsers: () => repo.listUsers(),
    /** Every party with its user and hot balance (Redis, as the gateway reserves from it). */
    async listParties() {
      const users = (await repo.listUsers()).filter((u) => u.partyId !== null);
      return Promise.all(
        users.map(async (u) => ({
          partyId: u.partyId!,
          userId: u.id,
          email: u.email,
          ...(await readBalance(redis, keys, u.partyId!)),
        })),
      );
    },
    /**
     * Gateway keys of the user with that id or e-mail (null when there is none), or of every user, each
     * with its budget and its last use and spend from the gateway's counters (one HMGET per party).
     */
    async listKeys(user?: string) {
      const found =
        user === undefined || !user.includes("@")
          ? { id: user }
          : await accounts.findUserByEmail(user.toLowerCase());
      if (!found) return null;
      const rows = await repo.listKeys(found.id);
      const byParty = new Map<string, string[]>();
      for (const k of rows) {
        if (!k.partyId) continue;
        const ids = byParty.get(k.partyId) ?? [];
        ids.push(k.id);
        byParty.set(k.partyId, ids);
      }
      const counters = new Map(
        (
          await Promise.all([...byParty].map(([partyId, ids]) => readKeyCounters(redis, keys, partyId, ids)))
        ).flatMap((m) => [...m]),
      );
      return rows.map(({ dailySpendCap, monthlySpendCap, ...k }) => {
        const c = counters.get(k.id);
        return {
          ...k,
          spendCaps: { daily: capInCoins(dailySpendCap), monthly: capInCoins(monthlySpendCap) },
          spentToday: formatCoins(c?.day ?? 0n),
          spentThisMonth: formatCoins(c?.month ?? 0n),
          lastUsedAt: c?.lastUsed ? new Date(c.lastUsed) : null,
        };
      });
    },
    /** The deactivated key, or null when there is none with that id. */
    deactivateKey: async (keyId: string) =>
      changed(
        invalidation.key(keyId),
        await audited(async (r, tx) => {
          const [key] = await tellDeactivated(tx, await r.deactivateKey(keyId), OPERATOR);
          // Already deactivated: answered as it is, and not told again.
          return key ?? (await r.findKeyDeactivated(keyId));
        }),
      ),

    /**
     * A gateway user (found by e-mail, else created) with one fresh key, the user's earlier keys
     * deactivated; unless `party: false`, its party (found or created), funded with `coins` once per
     * `ref`. Without an e-mail a new user is made; without a password hash (computed only for a new user)
     * it cannot log in. When `keep` is a working key of that user, it is kept instead of a fresh one (the
     * demo keeps its printed key across restarts).
     */
    async openAccount(input: {
      keep?: string | undefined;
      email?: string;
      passwordHash?: () => Promise<string>;
      party?: boolean;
      coins?: string;
      ref?: string;
    }) {
      const userId = newId("gatewayUser");
      const user =
        (input.email ? await accounts.findUserByEmail(input.email) : null) ??
        (await accounts.insertUser({
          id: userId,
          email: input.email ?? `${userId.toLowerCase()}@example.test`,
          passwordHash: input.passwordHash ? await input.passwordHash() : "-",
        }))!;
      const kept = input.keep ? await repo.findWorkingKeyOfUser(user.id, hashApiKey(input.keep)) : null;
      const key = kept ? { id: kept.id, apiKey: input.keep! } : await freshKey(user.id);
      const account = { userId: user.id, email: user.email, keyId: key.id, apiKey: key.apiKey };
      if (input.party === false) return { ...account, partyId: null, balance: 0n };
      const party =
        (await accounts.findPartyOfUser(user.id)) ??
        (await accounts.insertParty({ id: newId("party"), userId: user.id }))!;
      const balance = input.coins
        ? (
            await creditParty(db, redis, keys, {
              partyId: party.id,
              amount: coinsToBaseUnits(input.coins),
              ref: input.ref ?? `fund-${randomBytes(6).toString("hex")}`,
            })
          ).balance
        : (await readBalance(redis, keys, party.id)).balance;
      return { ...account, partyId: party.id, balance };
    },
  };
}

/** A provider as audited: its origin's host only, since an origin URL may carry the provider's own key. */
function audit(p: ProviderRow) {
  let origin: string | null = null;
  try {
    origin = new URL(p.originUrl).host;
  } catch {}
  return { key: p.key, origin, costInUsd: p.costInUsd, status: p.status };
}
const provider = (action: "provider.create" | "provider.update", p: ProviderRow) => ({
  actor: OPERATOR,
  action,
  target: p.key,
});

export type GatewayOperatorService = ReturnType<typeof createGatewayOperatorService>;
