import { bigint, index, integer, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Sui (chain C) rewards, indexed by the worker from the node's GraphQL RPC. Amounts are MIST (u64 on chain,
 * `numeric(20)` here so every u64 fits; read as strings, computed as bigint).
 */

/** The operator's staking pools: a configured validator address resolved to its pool and rate table. */
export const suiPools = pgTable("sui_pools", {
  poolId: text().primaryKey(),
  validatorAddress: text().notNull(),
  /** The `exchange_rates: Table<u64, PoolTokenExchangeRate>` object whose dynamic fields hold the rates. */
  exchangeRatesId: text().notNull(),
  activationEpoch: integer().notNull(),
  /** Every epoch up to this one has been read: a missing rate row below it is a real gap (safe mode). */
  indexedThroughEpoch: integer(),
});

/**
 * `exchange_rates[epoch]` of a pool: written at the start of the epoch and never changed after, so a row
 * is cached forever. No row for an indexed epoch means the chain inserted none (safe mode).
 */
export const suiPoolRates = pgTable(
  "sui_pool_rates",
  {
    poolId: text().notNull(),
    epoch: integer().notNull(),
    suiAmount: numeric({ precision: 20, scale: 0 }).notNull(),
    poolTokenAmount: numeric({ precision: 20, scale: 0 }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.poolId, t.epoch] })],
);

/** Start time of each epoch (ms since the Unix epoch); immutable once the epoch has started. */
export const suiEpochs = pgTable("sui_epochs", {
  epoch: integer().primaryKey(),
  startMs: bigint({ mode: "bigint" }).notNull(),
});

/** Delegators the indexer follows: queried once through the API, or listed in an organisation's scope. */
export const suiDelegators = pgTable("sui_delegators", {
  address: text().primaryKey(),
  /** Opaque GraphQL cursor after the last UnstakingRequestEvent already stored. */
  unstakeCursor: text(),
  syncedAt: timestamp({ withTimezone: true, precision: 3 }),
});

/**
 * A delegator's stakes in the operator's pools: live `StakedSui` objects it owns (`source = owned`, keyed
 * by object id) and closed ones from `UnstakingRequestEvent` (`source = unstaked`, keyed by transaction
 * digest and event index, with the reward the chain paid).
 */
export const suiStakes = pgTable(
  "sui_stakes",
  {
    delegator: text().notNull(),
    stakeKey: text().notNull(),
    source: text({ enum: ["owned", "unstaked"] }).notNull(),
    poolId: text().notNull(),
    principal: numeric({ precision: 20, scale: 0 }).notNull(),
    activationEpoch: integer().notNull(),
    unstakeEpoch: integer(),
    rewardAmount: numeric({ precision: 20, scale: 0 }),
  },
  (t) => [primaryKey({ columns: [t.delegator, t.stakeKey] }), index("sui_stakes_pool_idx").on(t.poolId)],
);
