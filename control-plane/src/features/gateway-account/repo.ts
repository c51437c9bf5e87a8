import type { DbOrTx } from "@stake/db/client";
import {
  coinRates,
  gatewayApiKeys,
  gatewayUsageDaily,
  gatewayUsers,
  type KeyLimit,
  ledgerEntries,
  parties,
  providers,
  reservations,
} from "@stake/db/schema/gateway";
import { and, asc, between, count, desc, eq, gt, isNull, ne, or, type SQL, sql } from "drizzle-orm";

/**
 * What deactivating a key sets. Idempotent: a key already deactivated keeps its first `deactivatedAt`, so
 * repeating the call answers what the first did.
 */
export const DEACTIVATED = {
  active: false,
  deactivatedAt: sql`coalesce(${gatewayApiKeys.deactivatedAt}, now())`,
} as const;

/**
 * Deactivates the keys `where` selects that are still active; the rows it deactivated (an already
 * deactivated key is not among them). The service tells of them (deactivation.ts) in the same transaction.
 */
export function deactivateKeys(db: DbOrTx, where: SQL | undefined) {
  return db
    .update(gatewayApiKeys)
    .set(DEACTIVATED)
    .where(and(where, eq(gatewayApiKeys.active, true)))
    .returning();
}

/** The coin rate in force: the newest row, as the gateway reads it (null before the operator sets one). */
export async function currentCoinRate(db: DbOrTx) {
  const [rate] = await db.select().from(coinRates).orderBy(desc(coinRates.createdAt)).limit(1);
  return rate ?? null;
}

/** One page of rows and the count of all of them, read side by side. */
async function paged<T>(rows: Promise<T[]>, total: Promise<{ n: number }[]>) {
  const [page, [all]] = await Promise.all([rows, total]);
  return { rows: page, total: all?.n ?? 0 };
}

/** The gateway account's queries on `db`, possibly the transaction a service opened. */
export function createGatewayAccountRepo(db: DbOrTx) {
  return {
    async insertUser(row: { id: string; email: string; passwordHash: string }) {
      const [user] = await db.insert(gatewayUsers).values(row).onConflictDoNothing().returning();
      return user ?? null;
    },
    async findUserByEmail(email: string) {
      const [user] = await db.select().from(gatewayUsers).where(eq(gatewayUsers.email, email)).limit(1);
      return user ?? null;
    },
    async userExists(userId: string) {
      const [user] = await db
        .select({ id: gatewayUsers.id })
        .from(gatewayUsers)
        .where(eq(gatewayUsers.id, userId))
        .limit(1);
      return user !== undefined;
    },
    async insertParty(row: { id: string; userId: string }) {
      const [party] = await db.insert(parties).values(row).onConflictDoNothing().returning();
      return party ?? null;
    },
    /** A new threshold re-arms the event: the next settlement below it tells. */
    async setLowBalanceThreshold(partyId: string, threshold: string | null) {
      await db
        .update(parties)
        .set({ lowBalanceThreshold: threshold, lowBalanceNotified: false })
        .where(eq(parties.id, partyId));
    },
    async findPartyOfUser(userId: string) {
      const [party] = await db.select().from(parties).where(eq(parties.userId, userId)).limit(1);
      return party ?? null;
    },
    async setSpendCaps(partyId: string, caps: { daily: string | null; monthly: string | null }) {
      const [party] = await db
        .update(parties)
        .set({ dailySpendCap: caps.daily, monthlySpendCap: caps.monthly })
        .where(eq(parties.id, partyId))
        .returning();
      return party ?? null;
    },
    async insertKey(row: {
      id: string;
      userId: string;
      hash: string;
      start: string;
      label?: string | null;
      expiresAt?: Date | null;
      limits?: KeyLimit[];
      dailySpendCap?: string | null;
      monthlySpendCap?: string | null;
    }) {
      const [key] = await db.insert(gatewayApiKeys).values(row).returning();
      return key;
    },
    /** The user's keys, newest first: what identifies them, never the hash. */
    async listKeys(userId: string) {
      return db
        .select({
          id: gatewayApiKeys.id,
          start: gatewayApiKeys.start,
          label: gatewayApiKeys.label,
          active: gatewayApiKeys.active,
          expiresAt: gatewayApiKeys.expiresAt,
          createdAt: gatewayApiKeys.createdAt,
          deactivatedAt: gatewayApiKeys.deactivatedAt,
          limits: gatewayApiKeys.limits,
          dailySpendCap: gatewayApiKeys.dailySpendCap,
          monthlySpendCap: gatewayApiKeys.monthlySpendCap,
          rotatedAt: gatewayApiKeys.rotatedAt,
          previousHashExpiresAt: gatewayApiKeys.previousHashExpiresAt,
        })
        .from(gatewayApiKeys)
        .where(eq(gatewayApiKeys.userId, userId))
        .orderBy(desc(gatewayApiKeys.createdAt), desc(gatewayApiKeys.id));
    },
    /** Providers a key can be used with; their origins stay private to the operator. */
    async listCallableProviders() {
      return db
        .select({ key: providers.key, costInUsd: providers.costInUsd, status: providers.status })
        .from(providers)
        .where(ne(providers.status, "disabled"))
        .orderBy(asc(providers.key));
    },
    /** One page of a party's reservations, newest first, and how many there are. */
    listReservations(partyId: string, page: number, pageSize: number) {
      return paged(
        db
          .select()
          .from(reservations)
          .where(eq(reservations.partyId, partyId))
          .orderBy(desc(reservations.createdAt), desc(reservations.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: count() }).from(reservations).where(eq(reservations.partyId, partyId)),
      );
    },
    /** One page of a party's funding credits (ledger entries of kind credit), newest first. */
    listCredits(partyId: string, page: number, pageSize: number) {
      const mine = and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "credit"));
      return paged(
        db
          .select()
          .from(ledgerEntries)
          .where(mine)
          .orderBy(desc(ledgerEntries.createdAt), desc(ledgerEntries.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: count() }).from(ledgerEntries).where(mine),
      );
    },
    currentCoinRate: () => currentCoinRate(db),
    /** A party's usage roll-up rows for a UTC day range (both ends included), oldest day first. */
    async listUsage(partyId: string, from: string, to: string) {
      const u = gatewayUsageDaily;
      return db
        .select()
        .from(u)
        .where(and(eq(u.partyId, partyId), between(u.day, from, to)))
        .orderBy(asc(u.day), asc(u.keyId), asc(u.providerKey));
    },
    /** One of the user's keys (null: none with that id is theirs). */
    async findKeyOfUser(userId: string, keyId: string) {
      const [key] = await db
        .select()
        .from(gatewayApiKeys)
        .where(and(eq(gatewayApiKeys.id, keyId), eq(gatewayApiKeys.userId, userId)));
      return key ?? null;
    },
    /**
     * Replaces the secret of a key that still works; the replaced one is kept as the previous hash until
     * `graceUntil` (one previous secret at most). Null when the key is not the user's, inactive or expired.
     */
    async rotateKey(
      userId: string,
      keyId: string,
      next: { hash: string; start: string; graceUntil: Date; at: Date },
    ) {
      const k = gatewayApiKeys;
      const [key] = await db
        .update(k)
        .set({
          previousHash: sql`${k.hash}`,
          previousHashExpiresAt: next.graceUntil,
          hash: next.hash,
          start: next.start,
          rotatedAt: next.at,
        })
        .where(
          and(
            eq(k.id, keyId),
            eq(k.userId, userId),
            eq(k.active, true),
            or(isNull(k.expiresAt), gt(k.expiresAt, next.at)),
          ),
        )
        .returning();
      return key ?? null;
    },
    /** Sets a key's limits or spend caps; the key as set (null: not the user's). */
    async updateKeyBudget(
      userId: string,
      keyId: string,
      set: { limits: KeyLimit[] } | { dailySpendCap: string | null; monthlySpendCap: string | null },
    ) {
      const [key] = await db
        .update(gatewayApiKeys)
        .set(set)
        .where(and(eq(gatewayApiKeys.id, keyId), eq(gatewayApiKeys.userId, userId)))
        .returning();
      return key ?? null;
    },
    /** The user's key if it was active and is deactivated now, else none (see `deactivateKeys`). */
    deactivateKeyOfUser: (userId: string, keyId: string) =>
      deactivateKeys(db, and(eq(gatewayApiKeys.id, keyId), eq(gatewayApiKeys.userId, userId))),
  };
}

export type GatewayAccountRepo = ReturnType<typeof createGatewayAccountRepo>;
