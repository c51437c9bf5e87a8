import type { DbOrTx } from "@stake/db/client";
import {
  gatewayApiKeys,
  gatewayUsageDaily,
  gatewayUsers,
  parties,
  providers,
  reservations,
} from "@stake/db/schema/gateway";
import { and, asc, between, count, desc, eq, ne, type SQL, sql } from "drizzle-orm";
import { type AuditActor, recordAudit } from "../audit/repo.ts";
import { emitEvents } from "../webhooks/outbox.ts";

/**
 * What deactivating a key sets. Idempotent: a key already deactivated keeps its first `deactivatedAt`, so
 * repeating the call answers what the first did.
 */
export const DEACTIVATED = {
  active: false,
  deactivatedAt: sql`coalesce(${gatewayApiKeys.deactivatedAt}, now())`,
} as const;

/**
 * Deactivates the keys `where` selects that are still active and writes a `gateway.key_deactivated` event
 * and an audit entry (by `actor`) for each in the same transaction (the webhook outbox, issue 28), so the
 * event is told exactly when a key stops working, once. Opens its own transaction, or joins the caller's
 * when `db` is one.
 */
export async function deactivateKeysAndTell(db: DbOrTx, where: SQL | undefined, actor: AuditActor) {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(gatewayApiKeys)
      .set(DEACTIVATED)
      .where(and(where, eq(gatewayApiKeys.active, true)))
      .returning();
    await emitEvents(
      tx,
      rows.map((k) => ({
        owner: { kind: "gateway_user" as const, id: k.userId },
        type: "gateway.key_deactivated" as const,
        data: { keyId: k.id, start: k.start, deactivatedAt: (k.deactivatedAt ?? new Date()).toISOString() },
      })),
    );
    await recordAudit(
      tx,
      ...rows.map((k) => ({
        actor,
        action: "gateway_key.deactivate" as const,
        target: k.id,
        before: { active: true },
        after: { active: false, deactivatedAt: k.deactivatedAt },
      })),
    );
    return rows;
  });
}

export function createGatewayAccountRepo(db: DbOrTx) {
  return {
    ...repoOn(db),
    /** `fn` with this repo on one transaction, and the transaction for other areas' writes (the audit). */
    transaction: <T>(fn: (repo: ReturnType<typeof repoOn>, tx: DbOrTx) => Promise<T>) =>
      db.transaction((tx) => fn(repoOn(tx), tx)),
  };
}

function repoOn(db: DbOrTx) {
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
    async listReservations(partyId: string, page: number, pageSize: number) {
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(reservations)
          .where(eq(reservations.partyId, partyId))
          .orderBy(desc(reservations.createdAt), desc(reservations.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: count() }).from(reservations).where(eq(reservations.partyId, partyId)),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
    /** A party's usage roll-up rows for a UTC day range (both ends included), oldest day first. */
    async listUsage(partyId: string, from: string, to: string) {
      const u = gatewayUsageDaily;
      return db
        .select()
        .from(u)
        .where(and(eq(u.partyId, partyId), between(u.day, from, to)))
        .orderBy(asc(u.day), asc(u.keyId), asc(u.providerKey));
    },
    /** Idempotent: an already deactivated key is returned as it is, and told of only the first time. */
    async deactivateKey(userId: string, keyId: string) {
      const mine = and(eq(gatewayApiKeys.id, keyId), eq(gatewayApiKeys.userId, userId));
      const [key] = await deactivateKeysAndTell(db, mine, { kind: "user", id: userId });
      if (key) return key;
      const [existing] = await db.select().from(gatewayApiKeys).where(mine);
      return existing ?? null;
    },
  };
}

export type GatewayAccountRepo = ReturnType<typeof createGatewayAccountRepo>;
