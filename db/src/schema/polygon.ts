import { bigint, index, numeric, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

/**
 * Polygon (chain B) APR history, written by the worker from the L1 node. The accumulators are uint256 on
 * chain: `numeric(78)` holds any of them; read as strings, computed as bigint.
 */

/**
 * `getRewardPerShare()` and `exchangeRate()` of a ValidatorShare at one L1 block (docs/chains/polygon-sui.md
 * §1.5): taken at each checkpoint, at least every POLYGON_SNAPSHOT_INTERVAL_S, and backfilled at the APR
 * windows' starts when the node keeps history. Immutable once written (a block's state never changes
 * after finality; the worker reads `latest`, which a reorg could replace: a rewritten row is overwritten).
 */
export const polygonSnapshots = pgTable(
  "polygon_snapshots",
  {
    validatorShare: text().notNull(),
    block: bigint({ mode: "bigint" }).notNull(),
    /** Unix seconds of the block. */
    timestamp: bigint({ mode: "bigint" }).notNull(),
    rewardPerShare: numeric({ precision: 78, scale: 0 }).notNull(),
    exchangeRate: numeric({ precision: 78, scale: 0 }).notNull(),
    source: text({ enum: ["checkpoint", "interval", "backfill"] }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.validatorShare, t.block] }),
    // APR windows are looked up by time.
    index("polygon_snapshots_time_idx").on(t.validatorShare, t.timestamp),
  ],
);

/** How far the worker has read `NewHeaderBlock` logs of a RootChain contract. */
export const polygonLogCursors = pgTable("polygon_log_cursors", {
  rootChain: text().primaryKey(),
  lastBlock: bigint({ mode: "bigint" }).notNull(),
});
