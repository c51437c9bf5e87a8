import { digestsEqual, hashApiKey, type IssuedKey } from "@stake/db/api-key";
import type { Db, DbOrTx } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { apiKeys, type OrganisationScope, organisations } from "@stake/db/schema/accounts";
import { and, asc, eq, isNull } from "drizzle-orm";

/**
 * Organisations and API keys: shared by account v1, v2, the operator CLI and staking-area auth. Writes take
 * an optional transaction (`tx`, default `db`): a service that needs several in one opens it.
 */
export function createAccountsRepo(db: Db) {
  return {
    /** Inserts a pending organisation; returns null when the e-mail is taken (unique index, race-safe). */
    async insertOrganisation(
      args: {
        orgName: string;
        email: string;
        passwordHash: string;
        scope: OrganisationScope;
        signedUpVia: "v1" | "v2";
      },
      tx: DbOrTx = db,
    ) {
      const [row] = await tx
        .insert(organisations)
        .values({ id: newId("organisation"), ...args })
        .onConflictDoNothing({ target: organisations.email })
        .returning();
      return row ?? null;
    },

    async findOrganisationByEmail(email: string) {
      const [row] = await db.select().from(organisations).where(eq(organisations.email, email)).limit(1);
      return row ?? null;
    },

    async findOrganisationById(id: string) {
      const [row] = await db.select().from(organisations).where(eq(organisations.id, id)).limit(1);
      return row ?? null;
    },

    async setOrganisationScope(email: string, scope: OrganisationScope) {
      const [row] = await db
        .update(organisations)
        .set({ scope })
        .where(eq(organisations.email, email))
        .returning();
      return row ?? null;
    },

    async listOrganisations(status?: (typeof organisations.$inferSelect)["status"]) {
      return db
        .select()
        .from(organisations)
        .where(status ? eq(organisations.status, status) : undefined)
        .orderBy(asc(organisations.createdAt));
    },

    /** The organisation, its row locked until `tx` ends (to read what a change replaces). */
    async lockOrganisationByEmail(email: string, tx: DbOrTx) {
      const [row] = await tx.select().from(organisations).where(eq(organisations.email, email)).for("update");
      return row ?? null;
    },

    async setOrganisationStatus(
      email: string,
      status: (typeof organisations.$inferSelect)["status"],
      tx: DbOrTx = db,
    ) {
      const [row] = await tx
        .update(organisations)
        .set({ status })
        .where(eq(organisations.email, email))
        .returning();
      return row ?? null;
    },

    async insertKey(args: { organisationId: string; label: string; issued: IssuedKey }, tx: DbOrTx = db) {
      const [row] = await tx
        .insert(apiKeys)
        .values({
          id: newId("apiKey"),
          organisationId: args.organisationId,
          label: args.label,
          hash: args.issued.hash,
          start: args.issued.start,
        })
        .returning();
      return row!;
    },

    async listActiveKeys(organisationId: string, tx: DbOrTx = db) {
      return tx
        .select({
          keyId: apiKeys.id,
          label: apiKeys.label,
          start: apiKeys.start,
          createdAt: apiKeys.createdAt,
        })
        .from(apiKeys)
        .where(and(eq(apiKeys.organisationId, organisationId), isNull(apiKeys.revokedAt)))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
    },

    /** Revokes one active key; `organisationId` restricts it to the owner. Returns whether a key was revoked. */
    async revokeKey(keyId: string, organisationId?: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(
          and(
            eq(apiKeys.id, keyId),
            isNull(apiKeys.revokedAt),
            organisationId ? eq(apiKeys.organisationId, organisationId) : undefined,
          ),
        )
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },

    /** Revokes an organisation's active keys that carry `label`. */
    async revokeKeysLabelled(organisationId: string, label: string, tx: DbOrTx = db) {
      await tx
        .update(apiKeys)
        .set({ revokedAt: new Date() })
        .where(
          and(
            eq(apiKeys.organisationId, organisationId),
            eq(apiKeys.label, label),
            isNull(apiKeys.revokedAt),
          ),
        );
    },

    /** Resolves a presented key to its active record and organisation, by hash. */
    async findActiveKey(key: string) {
      const hash = hashApiKey(key);
      const [row] = await db
        .select({ keyId: apiKeys.id, hash: apiKeys.hash, label: apiKeys.label, organisation: organisations })
        .from(apiKeys)
        .innerJoin(organisations, eq(organisations.id, apiKeys.organisationId))
        .where(and(eq(apiKeys.hash, hash), isNull(apiKeys.revokedAt)))
        .limit(1);
      // The index lookup already matched; the constant-time compare keeps the check honest if it ever changes.
      return row && digestsEqual(row.hash, hash) ? row : null;
    },
  };
}

export type AccountsRepo = ReturnType<typeof createAccountsRepo>;
