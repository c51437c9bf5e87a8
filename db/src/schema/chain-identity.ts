import { jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Which chain each follower's stored data belongs to (docs/architecture.md §13, "Chain identity"): written
 * by the worker when an area first indexes, checked at start and on every pass. `nodeIdentity` is set while
 * the node serves another chain: the area stops writing and its data endpoints answer 503 CHAIN_MISMATCH.
 */
export const chainIdentities = pgTable("chain_identities", {
  /** The follower's area: beacon-data, polygon-rewards, sui-rewards, solana-stake. */
  area: text().primaryKey(),
  /** The indexed chain's identity as flat strings (e.g. genesis_validators_root, genesis_time). */
  identity: jsonb().$type<Record<string, string>>().notNull(),
  recordedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  /** What the node answered instead, while it serves another chain; null when it serves the indexed one. */
  nodeIdentity: jsonb().$type<Record<string, string>>(),
  mismatchSince: timestamp({ withTimezone: true, precision: 3 }),
});
