/** Error codes of the Sui rewards area (chain C); merged into ERROR_STATUS in errors.ts. */
export const SUI_REWARDS_ERRORS = {
  /** Retired (now NOT_INDEXED_YET); kept because codes are append-only (docs/style.md §3). */
  SUI_INDEX_NOT_READY: 503,
  /** A stake activated before the first indexed rate of its pool (SUI_INDEX_FROM_EPOCH set too late). */
  SUI_RATES_NOT_INDEXED: 503,
  /** The organisation follows its cap of delegators outside its scope (SUI_FOLLOWS_PER_ORGANISATION). */
  SUI_FOLLOW_LIMIT_REACHED: 403,
} as const;
