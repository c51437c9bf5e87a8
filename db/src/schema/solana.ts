import { bigint, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Rewards of one stake account in one completed epoch (inflation from getInflationReward, MEV from the
 * staker-rewards API). Past epochs never change, so a row is written once and the node is never asked again.
 * `postBalance` is null when the account earned no inflation that epoch (the RPC answered null).
 */
export const solanaEpochRewards = pgTable(
  "solana_epoch_rewards",
  {
    stakeAccount: text().notNull(),
    epoch: integer().notNull(),
    inflationLamports: bigint({ mode: "bigint" }).notNull(),
    mevLamports: bigint({ mode: "bigint" }).notNull(),
    postBalanceLamports: bigint({ mode: "bigint" }),
    voter: text(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.stakeAccount, t.epoch] })],
);

/** First slot and block time of each epoch (immutable once the epoch has started). */
export const solanaEpochs = pgTable("solana_epochs", {
  epoch: integer().primaryKey(),
  firstSlot: bigint({ mode: "bigint" }).notNull(),
  startTime: bigint({ mode: "bigint" }).notNull(),
});
