import type { Db, DbOrTx } from "@stake/db/client";
import { chainIdentities } from "@stake/db/schema/chain-identity";
import { eq, sql } from "drizzle-orm";
import { CHAIN_AREAS, type ChainArea, type ChainIdentity } from "./areas.ts";

/** The recorded identities and the area resets (docs/architecture.md §13, "Chain identity"). */
export const chainIdentityRepo = {
  async read(db: DbOrTx, area: ChainArea) {
    const [row] = await db.select().from(chainIdentities).where(eq(chainIdentities.area, area));
    return row ?? null;
  },

  /** Records `identity` as the indexed chain's, the node serving it. */
  async record(db: DbOrTx, area: ChainArea, identity: ChainIdentity) {
    const values = { identity, recordedAt: new Date(), nodeIdentity: null, mismatchSince: null };
    await db
      .insert(chainIdentities)
      .values({ area, ...values })
      .onConflictDoUpdate({ target: chainIdentities.area, set: values });
  },

  async markMismatch(db: DbOrTx, area: ChainArea, node: ChainIdentity | null) {
    await db
      .update(chainIdentities)
      .set({ nodeIdentity: node, mismatchSince: node ? sql`coalesce(mismatch_since, now())` : null })
      .where(eq(chainIdentities.area, area));
  },

  /** The area's transaction lock, the one its follower writes under. */
  lockArea: (tx: DbOrTx, area: ChainArea) =>
    tx.execute(sql`select pg_advisory_xact_lock(${CHAIN_AREAS[area].lock})`),

  /** Rows per table of what a reset of `area` deletes (the CLI's dry run). */
  async countIndexed(db: Db, area: ChainArea): Promise<Record<string, number>> {
    const counts: Record<string, number> = {};
    for (const table of CHAIN_AREAS[area].tables) {
      const [row] = await db.execute<{ n: string }>(sql`select count(*) as n from ${sql.identifier(table)}`);
      counts[table] = Number(row?.n ?? 0);
    }
    return counts;
  },

  /** Deletes everything the area indexed, and its recorded identity: the next pass starts from the node. */
  async deleteIndexed(tx: DbOrTx, area: ChainArea) {
    for (const table of CHAIN_AREAS[area].tables) await tx.execute(sql`delete from ${sql.identifier(table)}`);
    if (area === "sui-rewards")
      await tx.execute(sql`update sui_delegators set unstake_cursor = null, synced_at = null`);
    await tx.delete(chainIdentities).where(eq(chainIdentities.area, area));
  },
};
