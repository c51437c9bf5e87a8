import type { DbOrTx } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { coinRates, gatewayApiKeys, gatewayUsers, parties, providers } from "@stake/db/schema/gateway";
import { and, asc, eq } from "drizzle-orm";
import { currentCoinRate, DEACTIVATED, deactivateKeys } from "./repo.ts";

export type ProviderStatus = (typeof providers.$inferSelect)["status"];
export type ProviderRow = typeof providers.$inferSelect;

/** The operator's side of gateway state: providers, the coin rate, any user's keys. */
export function createGatewayOperatorRepo(db: DbOrTx) {
  return {
    /** The new provider, or null when `key` is taken. */
    async insertProvider(row: { key: string; originUrl: string; costInUsd: string; status: ProviderStatus }) {
      const [provider] = await db
        .insert(providers)
        .values({ id: newId("provider"), ...row })
        .onConflictDoNothing()
        .returning();
      return provider ?? null;
    },
    async updateProvider(
      key: string,
      set: Partial<{ originUrl: string; costInUsd: string; status: ProviderStatus }>,
    ) {
      const [provider] = await db.update(providers).set(set).where(eq(providers.key, key)).returning();
      return provider ?? null;
    },
    async findProvider(key: string) {
      const [provider] = await db.select().from(providers).where(eq(providers.key, key)).limit(1);
      return provider ?? null;
    },
    listProviders() {
      return db.select().from(providers).orderBy(asc(providers.key));
    },
    async insertCoinRate(usdPerCoin: string) {
      const [rate] = await db
        .insert(coinRates)
        .values({ id: newId("coinRate"), usdPerCoin })
        .returning();
      return rate!;
    },
    /** The rate in force: the newest, as the gateway reads it. */
    currentCoinRate: () => currentCoinRate(db),
    async findParty(partyId: string) {
      const [party] = await db.select().from(parties).where(eq(parties.id, partyId)).limit(1);
      return party ?? null;
    },
    /** The key if it was active and is deactivated now, else none (see `deactivateKeys`). */
    deactivateKey: (keyId: string) => deactivateKeys(db, eq(gatewayApiKeys.id, keyId)),
    /** The key as it is (DEACTIVATED keeps the first deactivatedAt), or null when there is none. */
    async findKeyDeactivated(keyId: string) {
      const [existing] = await db
        .update(gatewayApiKeys)
        .set(DEACTIVATED)
        .where(eq(gatewayApiKeys.id, keyId))
        .returning();
      return existing ?? null;
    },
    /** The user's key with that hash if it still works (active, unexpired), else null. */
    async findWorkingKeyOfUser(userId: string, hash: string) {
      const [key] = await db
        .select({ id: gatewayApiKeys.id, expiresAt: gatewayApiKeys.expiresAt })
        .from(gatewayApiKeys)
        .where(
          and(
            eq(gatewayApiKeys.userId, userId),
            eq(gatewayApiKeys.hash, hash),
            eq(gatewayApiKeys.active, true),
          ),
        );
      return key && (!key.expiresAt || key.expiresAt > new Date()) ? key : null;
    },
    deactivateKeysOfUser: (userId: string) => deactivateKeys(db, eq(gatewayApiKeys.userId, userId)),
    /** Every gateway user with its party, if any, oldest first. */
    listUsers() {
      return db
        .select({
          id: gatewayUsers.id,
          email: gatewayUsers.email,
          partyId: parties.id,
          createdAt: gatewayUsers.createdAt,
        })
        .from(gatewayUsers)
        .leftJoin(parties, eq(parties.userId, gatewayUsers.id))
        .orderBy(asc(gatewayUsers.createdAt), asc(gatewayUsers.id));
    },
    /**
     * Gateway keys (never the secret: the id, its display start, state and budget) with their owner's
     * party, of one user or all.
     */
    listKeys(userId?: string) {
      const k = gatewayApiKeys;
      return db
        .select({
          id: k.id,
          userId: k.userId,
          email: gatewayUsers.email,
          partyId: parties.id,
          start: k.start,
          label: k.label,
          active: k.active,
          expiresAt: k.expiresAt,
          limits: k.limits,
          dailySpendCap: k.dailySpendCap,
          monthlySpendCap: k.monthlySpendCap,
          rotatedAt: k.rotatedAt,
          previousHashExpiresAt: k.previousHashExpiresAt,
          createdAt: k.createdAt,
          deactivatedAt: k.deactivatedAt,
        })
        .from(k)
        .innerJoin(gatewayUsers, eq(gatewayUsers.id, k.userId))
        .leftJoin(parties, eq(parties.userId, k.userId))
        .where(userId ? eq(gatewayApiKeys.userId, userId) : undefined)
        .orderBy(asc(gatewayApiKeys.createdAt), asc(gatewayApiKeys.id));
    },
  };
}
