import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  pgEnum,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { organisations } from "./accounts.ts";

/**
 * The beacon-chain data area: what the indexer learns from the beacon node and the execution node about
 * the validators the platform tracks (every provisioned validator plus every pubkey an organisation
 * registered). Amounts are integer Gwei. Rows of epochs after the finalized checkpoint (the cursor's
 * `finalized_epoch`; transactions also carry `finalized = false`) may be replaced when the chain re-organises.
 */

/** The spec's validator lifecycle status; UNKNOWN aside, a validator passes them in order. */
export const validatorStatus = pgEnum("validator_status", [
  "CREATED",
  "DEPOSITED",
  "PENDING",
  "ACTIVE",
  "EXIT_REQUESTED",
  "EXIT_SENT",
  "EXITED",
  "WITHDRAWAL_DONE",
  "UNKNOWN",
]);

export const trackingSource = pgEnum("beacon_tracking_source", ["provisioned", "registered"]);

/**
 * Every validator the platform follows, once per organisation: provisioned here (the provisioning area
 * calls beacon-data's `track` port in its own transaction) or registered (POST /api/validators/register).
 * The one owner of "tracked Ethereum validator"; its lifecycle is `beacon_validators.lifecycle_status`.
 */
export const beaconTrackedValidators = pgTable(
  "beacon_tracked_validators",
  {
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    pubkey: text().notNull(),
    source: trackingSource().notNull(),
    /** The provision's fee recipient as given (checksummed); null for registered pubkeys. */
    feeRecipient: text(),
    /** The deposit's credentials of a provisioned validator (the registry's win once it has them). */
    withdrawalCredentials: text(),
    /**
     * Whether the organisation's rollup counts this pubkey's indexed days. A registration starts false; the
     * indexer adds the days already indexed under its lock and sets it (docs/architecture.md §9).
     */
    inOrgRollup: boolean().notNull().default(true),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /**
     * The lifecycle steps this organisation itself caused off the chain (the operator's exit, docs/spec.md
     * "Exits, withdrawals and consolidations"): in its history and its events only, never another's, and
     * never in `beacon_status_history`, which is what the chain showed everyone.
     */
    exitRequestedAt: timestamp({ withTimezone: true, precision: 3 }),
    exitSentAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ columns: [t.organisationId, t.pubkey] }),
    index("beacon_tracked_by_pubkey").on(t.pubkey),
  ],
);

/**
 * The latest known state of each tracked validator (one row per pubkey, whoever tracks it). Rewritten every
 * epoch (the balance), so migration 0008 leaves half of each page free (fillfactor 50): the update stays
 * on its page and touches no index (HOT).
 */
export const beaconValidators = pgTable(
  "beacon_validators",
  {
    pubkey: text().primaryKey(),
    validatorIndex: integer(),
    /** The beacon API status (pending_initialized … withdrawal_done); null until the registry has it. */
    beaconStatus: text(),
    lifecycleStatus: validatorStatus().notNull().default("CREATED"),
    withdrawalCredentials: text(),
    /** The fee recipient its last indexed proposal paid (each provisioner sees its own from its tracking row). */
    feeRecipient: text(),
    balanceGwei: bigint({ mode: "bigint" }).notNull().default(sql`0`),
    updatedEpoch: integer(),
    /**
     * The first epoch its rows were read for: the epoch it was first tracked in, lowered by the worker's
     * backfill of a registered pubkey (down to BEACON_BACKFILL_EPOCHS before the last indexed epoch, never
     * before the index's first epoch).
     */
    indexedFrom: integer(),
    /** Epochs in a row its balance fell (`validator.offline`); reset by a rise. */
    fallingEpochs: integer().notNull().default(0),
  },
  (t) => [
    index("beacon_validators_by_index").on(t.validatorIndex),
    // The backfill's floor (the lowest) and the few pubkeys above it, each step without a table scan.
    index("beacon_validators_by_indexed_from").on(t.indexedFrom),
  ],
);

/**
 * When the chain showed a validator in each lifecycle status (the epoch it was read in), the same for every
 * organisation tracking it. What one organisation caused off the chain, and CREATED, are on its row of
 * `beacon_tracked_validators`.
 */
export const beaconStatusHistory = pgTable(
  "beacon_status_history",
  {
    pubkey: text().notNull(),
    status: validatorStatus().notNull(),
    time: timestamp({ withTimezone: true, precision: 3 }).notNull(),
    epoch: integer(),
  },
  (t) => [primaryKey({ columns: [t.pubkey, t.status] }), index("beacon_status_history_by_epoch").on(t.epoch)],
);

/**
 * The Beacon API's validator statuses in the order a validator walks them (active_slashed and
 * exited_slashed are the slashed branch), so `order by` on the enum is the chain's order.
 */
export const beaconStatus = pgEnum("beacon_status", [
  "pending_initialized",
  "pending_queued",
  "active_ongoing",
  "active_exiting",
  "active_slashed",
  "exited_unslashed",
  "exited_slashed",
  "withdrawal_possible",
  "withdrawal_done",
]);

/**
 * The epoch each beacon status was reached in (docs/beacon-data.md "Beacon statuses and their epochs"):
 * the state's own epoch field where it has one (activation_eligibility_epoch, activation_epoch, exit_epoch,
 * withdrawable_epoch), else the epoch the indexer first read it in; null for a status of the latter kind
 * that passed between two reads. `readEpoch` is the epoch whose state said so (a re-org deletes from it).
 */
export const beaconStatusEpochs = pgTable(
  "beacon_status_epochs",
  {
    pubkey: text().notNull(),
    status: beaconStatus().notNull(),
    epoch: integer(),
    readEpoch: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.pubkey, t.status] }),
    index("beacon_status_epochs_by_read").on(t.readEpoch),
  ],
);

/**
 * The two parts of an execution-layer reward (integer Gwei, their sum is `el_reward_gwei`): what builders
 * paid the proposer on builder (MEV-boost) blocks, and the priority fees of blocks it built itself. Rows
 * written before migration 0014 carry 0 in both (their EL reward was not split).
 */
const elParts = {
  mevRewardGwei: bigint({ mode: "bigint" }).notNull().default(sql`0`),
  priorityFeeGwei: bigint({ mode: "bigint" }).notNull().default(sql`0`),
};

/**
 * The parts of a CL reward (our addition; docs/beacon-data.md, "CL reward breakdown"), integer Gwei, signed
 * (penalties negative), as the beacon node's standard rewards endpoints report them; their sum with
 * `cl_unexplained_gwei` is `cl_reward_gwei`. Null in `beacon_rewards` when the node did not serve the
 * endpoints for the epoch; the rollups count such rows' CL reward in `cl_not_broken_down_gwei`.
 */
const clParts = (nullable: boolean) => {
  const c = () =>
    nullable ? bigint({ mode: "bigint" }) : bigint({ mode: "bigint" }).notNull().default(sql`0`);
  return {
    clAttSourceGwei: c(),
    clAttTargetGwei: c(),
    clAttHeadGwei: c(),
    clAttInactivityGwei: c(),
    clSyncCommitteeGwei: c(),
    clProposerGwei: c(),
    /** The initial slashing penalty (the spec's, from the validator's effective balance); no endpoint has it. */
    clSlashingGwei: c(),
    /** `cl_reward_gwei` − the parts above: what the node's report does not account for (0 when it agrees). */
    clUnexplainedGwei: c(),
  };
};
const clRollupParts = {
  ...clParts(false),
  clNotBrokenDownGwei: bigint({ mode: "bigint" }).notNull().default(sql`0`),
};

/**
 * Rewards of one validator in one epoch: CL from the balance change, EL from the blocks it proposed. A row
 * is final when its epoch is before the cursor's `finalized_epoch` (no per-row flag: marking 10,000 rows
 * an epoch final rewrote every row of the largest table once more). Migration 0008 makes the primary key
 * cover the two reward columns, so sums over a validator's epochs are read from the index alone.
 */
export const beaconRewards = pgTable(
  "beacon_rewards",
  {
    validatorIndex: integer().notNull(),
    epoch: integer().notNull(),
    /** Balance at the end of the epoch: the stake of the time-weighted APY. */
    balanceGwei: bigint({ mode: "bigint" }).notNull(),
    clRewardGwei: bigint({ mode: "bigint" }).notNull(),
    /** = `mev_reward_gwei` + `priority_fee_gwei` (docs/beacon-data.md, "EL reward"). */
    elRewardGwei: bigint({ mode: "bigint" }).notNull(),
    ...elParts,
    ...clParts(true),
  },
  (t) => [primaryKey({ columns: [t.validatorIndex, t.epoch] }), index("beacon_rewards_by_epoch").on(t.epoch)],
);

/**
 * Per validator per UTC day sums of `beacon_rewards`, kept by the indexer in the same transaction (added on
 * insert, subtracted on replacement), so day and overview queries read days, not epochs. Its rows are
 * updated every epoch of their own day only, so it keeps full pages (see migration 0008).
 */
export const beaconRewardsDaily = pgTable(
  "beacon_rewards_daily",
  {
    validatorIndex: integer().notNull(),
    day: date({ mode: "string" }).notNull(),
    clRewardGwei: bigint({ mode: "bigint" }).notNull(),
    elRewardGwei: bigint({ mode: "bigint" }).notNull(),
    ...elParts,
    ...clRollupParts,
    /** Σ end-of-epoch balances, with `epochs`: the day's average stake. */
    balanceSumGwei: bigint({ mode: "bigint" }).notNull(),
    epochs: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.validatorIndex, t.day] }), index("beacon_rewards_daily_by_day").on(t.day)],
);

/**
 * Per organisation per UTC day sums of its validators' rewards (each validator once, provisioned or
 * registered), so the overview reads at most a year of rows however many validators the organisation has
 * (from `beacon_rewards_daily` it read validators × days: 0.45 s for 10,000 over a year). Kept with the
 * reward rows in the same statement (added on insert, backfill included; subtracted on replacement), and
 * given a validator's existing days when an organisation registers it, under the indexer's lock.
 */
export const beaconRewardsOrgDaily = pgTable(
  "beacon_rewards_org_daily",
  {
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    day: date({ mode: "string" }).notNull(),
    clRewardGwei: bigint({ mode: "bigint" }).notNull(),
    elRewardGwei: bigint({ mode: "bigint" }).notNull(),
    ...elParts,
    ...clRollupParts,
    balanceSumGwei: bigint({ mode: "bigint" }).notNull(),
    /** Validator-epochs summed (a row back at 0 after a re-org is deleted, as in the validators' rollup). */
    epochs: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.day] })],
);

/**
 * Per UTC day sums of every indexed validator's rewards (each validator once, whoever tracks it): the
 * network sample of `GET /api/rates`, one row a day where summing `beacon_rewards_daily` by day read
 * validators × days (2 s for 10,000 validators over 396 days at load 20, bench). Kept with the reward rows
 * in the same statement (added on insert, backfill included; subtracted on replacement).
 */
export const beaconRewardsNetworkDaily = pgTable("beacon_rewards_network_daily", {
  day: date({ mode: "string" }).primaryKey(),
  clRewardGwei: bigint({ mode: "bigint" }).notNull(),
  elRewardGwei: bigint({ mode: "bigint" }).notNull(),
  ...elParts,
  balanceSumGwei: bigint({ mode: "bigint" }).notNull(),
  /** Validator-epochs summed (a row back at 0 after a re-org is deleted, as in the other rollups). */
  epochs: integer().notNull(),
});

/** Deposits, withdrawals and EL requests (the spec's transaction object), keyed by a stable `uid`. */
export const beaconTransactions = pgTable(
  "beacon_transactions",
  {
    /** `el:<txHash>:<logIndex>` for logs, `cl:<withdrawalIndex>` for withdrawals. */
    uid: text().primaryKey(),
    pubkey: text().notNull(),
    type: text({ enum: ["DEPOSIT", "PARTIAL_EXIT", "FULL_WITHDRAWAL", "CONSOLIDATE", "SWITCH"] }).notNull(),
    layer: text({ enum: ["EXECUTION_LAYER", "CONSENSUS_LAYER"] }).notNull(),
    transactionHash: text().notNull(),
    blockNumber: integer().notNull(),
    blockTimestamp: bigint({ mode: "number" }).notNull(),
    data: text().notNull(),
    feeGwei: bigint({ mode: "bigint" }).notNull(),
    from: text().notNull(),
    to: text().notNull(),
    sourcePubkey: text(),
    targetPubkey: text(),
    amountGwei: bigint({ mode: "bigint" }).notNull(),
    withdrawalAddress: text(),
    withdrawalCredentials: text(),
    /** Beacon slot whose execution payload carried it (re-org replacement works by slot). */
    slot: integer().notNull(),
    finalized: boolean().notNull().default(false),
  },
  (t) => [
    index("beacon_transactions_by_pubkey").on(t.pubkey, t.blockNumber),
    index("beacon_transactions_by_slot").on(t.slot),
  ],
);

/** Block roots of the indexed slots after the finalized checkpoint (null: missed slot), to detect re-orgs. */
export const beaconIndexedSlots = pgTable("beacon_indexed_slots", {
  slot: integer().primaryKey(),
  root: text(),
});

/** Where the indexer stands: the last epoch fully written, and the chain constants it was computed with. */
export const beaconIndexerCursor = pgTable("beacon_indexer_cursor", {
  id: text().primaryKey(),
  epoch: integer().notNull(),
  /** The index's first epoch: no backfill reads before it (docs/beacon-data.md, "Backfill"). */
  firstEpoch: integer().notNull().default(0),
  finalizedEpoch: integer().notNull(),
  genesisTime: bigint({ mode: "number" }).notNull(),
  secondsPerSlot: integer().notNull(),
  slotsPerEpoch: integer().notNull(),
  updatedAt: timestamp({ withTimezone: true, precision: 3 })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
});
