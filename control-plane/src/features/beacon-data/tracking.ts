import type { Db, DbOrTx } from "@stake/db/client";
import { beaconTrackedValidators, beaconValidators } from "@stake/db/schema/beacon-data";
import { and, count, eq, inArray, sql } from "drizzle-orm";
import { lockIndex } from "./indexer-repo.ts";
import type { Lifecycle } from "./lifecycle.ts";
import { changeStatuses, type OwnStep } from "./status-changes.ts";
import type { BeaconStatus } from "./status-epochs.ts";

export type { OwnStep };

/** A provisioned validator's status as its organisation sees it: the chain's, or its own exit steps. */
const provisionedStatus = sql<Lifecycle>`greatest(${beaconValidators.lifecycleStatus},
  case when ${beaconTrackedValidators.exitSentAt} is not null then 'EXIT_SENT'::validator_status end,
  case when ${beaconTrackedValidators.exitRequestedAt} is not null then 'EXIT_REQUESTED'::validator_status end)`;
const provisionedRow = and(
  eq(beaconTrackedValidators.pubkey, beaconValidators.pubkey),
  eq(beaconTrackedValidators.source, "provisioned"),
);

export interface ValidatorLifecycle {
  status: Lifecycle;
  validatorIndex: number | null;
  /** The Beacon API status the indexer last read; null before the chain has the validator. */
  beaconStatus: BeaconStatus | null;
  beaconStatusHistory: { status: BeaconStatus; epoch: number | null }[];
}

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

    /** The indexer's lock, which `changeStatuses` needs held: the caller's transaction takes it first. */
    lockStatuses: lockIndex,

    /**
     * Records lifecycle steps the organisation itself caused off the chain (the operator's exit,
     * EXIT_REQUESTED and EXIT_SENT) and tells them as `validator.status_changed`, in the caller's transaction
     * (status-changes.ts). Its own history only: another organisation tracking the pubkey sees the chain's.
     */
    recordOwnSteps: (tx: DbOrTx, steps: OwnStep[]) => changeStatuses(tx, steps),

    /**
     * Lifecycle status of provisioned validators as their organisation sees them (the chain's, or its own
     * exit steps past it; CREATED until the indexer saw more), validator index, and the beacon statuses
     * reached with their epochs (status-epochs.ts) per pubkey.
     */
    async lifecycles(pubkeys: string[]): Promise<Map<string, ValidatorLifecycle>> {
      if (!pubkeys.length) return new Map();
      const rows = await db
        .select({
          pubkey: beaconValidators.pubkey,
          status: provisionedStatus,
          validatorIndex: beaconValidators.validatorIndex,
          beaconStatus: sql<BeaconStatus | null>`${beaconValidators.beaconStatus}`,
          beaconStatusHistory: sql<{ status: BeaconStatus; epoch: number | null }[]>`coalesce((
            select json_agg(json_build_object('status', e.status, 'epoch', e.epoch) order by e.status)
            from beacon_status_epochs e where e.pubkey = ${beaconValidators.pubkey}), '[]'::json)`,
        })
        .from(beaconValidators)
        .innerJoin(beaconTrackedValidators, provisionedRow)
        .where(inArray(beaconValidators.pubkey, pubkeys));
      return new Map(rows.map(({ pubkey, ...r }) => [pubkey, r]));
    },

    /** How many of the organisation's provisioned validators are in each lifecycle status. */
    async countProvisionedByStatus(organisationId: string): Promise<{ status: Lifecycle; n: number }[]> {
      const status = sql<Lifecycle>`coalesce(${provisionedStatus}, 'CREATED')`;
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
