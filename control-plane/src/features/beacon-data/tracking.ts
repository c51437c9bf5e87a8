import type { Db, DbOrTx } from "@stake/db/client";
import { beaconStatusHistory, beaconTrackedValidators, beaconValidators } from "@stake/db/schema/beacon-data";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { Lifecycle } from "./lifecycle.ts";

export interface TrackInput {
  organisationId: string;
  pubkey: string;
  feeRecipient: string | null;
  withdrawalCredentials: string;
  createdAt: Date;
}

/**
 * beacon-data's port for the provisioning area (docs/architecture.md §12): tracking starts when a validator
 * is created, and its lifecycle status and index are read here, where the indexer keeps them. Every
 * function takes an optional transaction, so provisioning tracks in its own.
 */
export function createTracking(db: Db) {
  return {
    /** Starts following provisioned validators (idempotent per organisation and pubkey). */
    async track(rows: TrackInput[], tx: DbOrTx = db) {
      if (!rows.length) return;
      await tx
        .insert(beaconTrackedValidators)
        .values(rows.map((r) => ({ ...r, source: "provisioned" as const })))
        .onConflictDoNothing();
    },

    /**
     * Records an off-chain lifecycle step the platform itself caused (EXIT_REQUESTED, EXIT_SENT): a history
     * entry with no epoch (a re-org rollback keeps it), the earlier kept if recorded twice, and the current
     * status moved forward, never back. The indexer carries on from the latest status in the history.
     */
    async recordStatus(pubkeys: string[], status: "EXIT_REQUESTED" | "EXIT_SENT", time: Date) {
      if (!pubkeys.length) return;
      await db
        .insert(beaconStatusHistory)
        .values(pubkeys.map((pubkey) => ({ pubkey, status, time, epoch: null })))
        .onConflictDoNothing();
      await db
        .update(beaconValidators)
        .set({ lifecycleStatus: status })
        .where(
          and(
            inArray(beaconValidators.pubkey, pubkeys),
            sql`${beaconValidators.lifecycleStatus} < ${status}::validator_status`,
          ),
        );
    },

    /** Lifecycle status (CREATED until the indexer saw more) and validator index per pubkey. */
    async lifecycles(
      pubkeys: string[],
    ): Promise<Map<string, { status: Lifecycle; validatorIndex: number | null }>> {
      if (!pubkeys.length) return new Map();
      const rows = await db
        .select({
          pubkey: beaconValidators.pubkey,
          status: beaconValidators.lifecycleStatus,
          validatorIndex: beaconValidators.validatorIndex,
        })
        .from(beaconValidators)
        .where(inArray(beaconValidators.pubkey, pubkeys));
      return new Map(rows.map((r) => [r.pubkey, { status: r.status, validatorIndex: r.validatorIndex }]));
    },

    /** How many of the organisation's provisioned validators are in each lifecycle status. */
    async countProvisionedByStatus(organisationId: string): Promise<{ status: Lifecycle; n: number }[]> {
      const status = sql<Lifecycle>`coalesce(${beaconValidators.lifecycleStatus}, 'CREATED')`;
      return db
        .select({ status, n: count() })
        .from(beaconTrackedValidators)
        .leftJoin(beaconValidators, eq(beaconValidators.pubkey, beaconTrackedValidators.pubkey))
        .where(
          sql`${beaconTrackedValidators.organisationId} = ${organisationId} and ${beaconTrackedValidators.source} = 'provisioned'`,
        )
        .groupBy(status);
    },
  };
}

export type Tracking = ReturnType<typeof createTracking>;
