import type { Db, DbOrTx } from "@stake/db/client";
import {
  exitMessageHandouts,
  keyIndexAllocator,
  type ProvisionAttributes,
  provisions,
  validators,
} from "@stake/db/schema/provisioning";
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";

export type ProvisionRow = typeof provisions.$inferSelect;
export type ValidatorRow = typeof validators.$inferSelect;
export type NewValidatorRow = typeof validators.$inferInsert;

export function createProvisioningRepo(db: Db) {
  return {
    /** Inserts unless (organisation, idempotency key) exists; returns the stored row either way. */
    async insertProvision(args: {
      id: string;
      organisationId: string;
      attributes: ProvisionAttributes;
      network: string;
      idempotencyKey: string | null;
      requestHash: string;
    }): Promise<{ row: ProvisionRow; created: boolean }> {
      const [row] = await db.insert(provisions).values(args).onConflictDoNothing().returning();
      if (row) return { row, created: true };
      const existing = args.idempotencyKey
        ? await this.findByIdempotencyKey(args.organisationId, args.idempotencyKey)
        : null;
      if (!existing) throw new Error("provision insert conflicted without an idempotency key");
      return { row: existing, created: false };
    },

    /** Validators the organisation's provisions still being worked on will create. */
    async validatorsInProgress(organisationId: string): Promise<number> {
      const [row] = await db
        .select({
          n: sql<number>`coalesce(sum((${provisions.attributes} ->> 'validatorsCount')::int), 0)::int`,
        })
        .from(provisions)
        .where(and(eq(provisions.organisationId, organisationId), eq(provisions.status, "IN_PROGRESS")));
      return row?.n ?? 0;
    },

    async findByIdempotencyKey(organisationId: string, key: string) {
      const [row] = await db
        .select()
        .from(provisions)
        .where(and(eq(provisions.organisationId, organisationId), eq(provisions.idempotencyKey, key)));
      return row ?? null;
    },

    async findProvision(id: string, organisationId?: string, tx: DbOrTx = db) {
      const where = organisationId
        ? and(eq(provisions.id, id), eq(provisions.organisationId, organisationId))
        : eq(provisions.id, id);
      const [row] = await tx.select().from(provisions).where(where);
      return row ?? null;
    },

    async setProvisionStatus(
      id: string,
      status: ProvisionRow["status"],
      patch: Partial<ProvisionRow> = {},
      tx: DbOrTx = db,
    ) {
      await tx
        .update(provisions)
        .set({ ...patch, status })
        .where(eq(provisions.id, id));
    },

    /**
     * Reserves `n` consecutive EIP-2334 indices for one seed. The upsert takes the row lock until the caller's
     * transaction ends, so concurrent provisions serialise here and a rolled-back provision frees its range.
     */
    async allocateKeyIndices(tx: DbOrTx, seedId: string, n: number): Promise<number> {
      const [row] = await tx
        .insert(keyIndexAllocator)
        .values({ seedId, nextIndex: n })
        .onConflictDoUpdate({
          target: keyIndexAllocator.seedId,
          set: { nextIndex: sql`${keyIndexAllocator.nextIndex} + ${n}` },
        })
        .returning();
      if (!row) throw new Error("key index allocation failed");
      return row.nextIndex - n;
    },

    async insertValidators(tx: DbOrTx, rows: NewValidatorRow[]) {
      if (rows.length) await tx.insert(validators).values(rows);
    },

    async listValidators(provisionId: string, page?: { limit: number; offset: number }) {
      const q = db
        .select()
        .from(validators)
        .where(eq(validators.provisionId, provisionId))
        .orderBy(asc(validators.position));
      return page ? q.limit(page.limit).offset(page.offset) : q;
    },

    async countValidators(provisionId: string) {
      const [row] = await db
        .select({ n: count() })
        .from(validators)
        .where(eq(validators.provisionId, provisionId));
      return row?.n ?? 0;
    },

    async findValidatorByPubkey(pubkey: string) {
      const [row] = await db.select().from(validators).where(eq(validators.pubkey, pubkey));
      return row ?? null;
    },

    /** The organisation's validators among `pubkeys` (another organisation's are simply absent). */
    async findOrganisationValidators(organisationId: string, pubkeys: string[]) {
      if (!pubkeys.length) return [];
      return db
        .select()
        .from(validators)
        .where(and(eq(validators.organisationId, organisationId), inArray(validators.pubkey, pubkeys)));
    },

    async insertExitHandout(row: typeof exitMessageHandouts.$inferInsert) {
      await db.insert(exitMessageHandouts).values(row);
    },

    async listOrganisationValidators(
      organisationId: string,
      page: { limit: number; offset: number } | undefined,
    ) {
      const q = db
        .select()
        .from(validators)
        .where(eq(validators.organisationId, organisationId))
        .orderBy(asc(validators.createdAt), asc(validators.keyIndex));
      const [total] = await db
        .select({ n: count() })
        .from(validators)
        .where(eq(validators.organisationId, organisationId));
      return { rows: await (page ? q.limit(page.limit).offset(page.offset) : q), total: total?.n ?? 0 };
    },
  };
}

export type ProvisioningRepo = ReturnType<typeof createProvisioningRepo>;
