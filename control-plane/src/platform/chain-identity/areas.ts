/**
 * What each chain follower stores of what its node said, written once: the guard deletes it when the area
 * is re-indexed against another chain, and `npm run operator -- chain reindex <area>` lists it in a dry
 * run (docs/architecture.md §13, "Chain identity"). Organisations' registrations, keys, webhooks and money
 * are not here and stay.
 */
export const CHAIN_AREAS = {
  "beacon-data": {
    /** The beacon indexer's transaction lock (indexer-repo.ts): a reset never interleaves with an epoch write. */
    lock: 727275,
    tables: [
      "beacon_rewards",
      "beacon_rewards_daily",
      "beacon_rewards_org_daily",
      "beacon_rewards_network_daily",
      "beacon_status_history",
      "beacon_status_epochs",
      "beacon_transactions",
      "beacon_indexed_slots",
      "beacon_validators",
      "beacon_indexer_cursor",
    ],
    keeps: "registered and provisioned pubkeys (beacon_tracked_validators), read again from the new chain",
  },
  "polygon-rewards": {
    lock: 727276,
    tables: ["polygon_snapshots", "polygon_log_cursors"],
    keeps: "nothing of the chain: the ValidatorShare is resolved again",
  },
  "sui-rewards": {
    lock: 727277,
    tables: ["sui_pool_rates", "sui_epochs", "sui_stakes", "sui_pools"],
    keeps: "the followed delegators (sui_delegators), whose event cursors start over",
  },
  "solana-stake": {
    lock: 727278,
    tables: ["solana_epoch_rewards", "solana_epochs"],
    keeps: "nothing of the chain: rewards are read again from the node",
  },
} as const;

export type ChainArea = keyof typeof CHAIN_AREAS;
export const CHAIN_AREA_NAMES = Object.keys(CHAIN_AREAS) as ChainArea[];

/** A chain's identity as flat strings (beacon: genesis_validators_root, genesis_time, …). */
export type ChainIdentity = Record<string, string>;

/**
 * Whether the node's identity is the recorded one: every recorded field must match. A field the node does
 * not report cannot vouch for it either (an anchored block the node does not have is another chain).
 */
export function sameChain(recorded: ChainIdentity, node: ChainIdentity): boolean {
  return Object.entries(recorded).every(([k, v]) => node[k] === v);
}

/** `genesis_time=1795910397, genesis_validators_root=0x4b36…` for logs and the 503's message. */
export function describeIdentity(identity: ChainIdentity): string {
  return Object.entries(identity)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
}
