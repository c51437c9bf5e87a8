/** Error codes of the Polygon rewards area (chain B); merged into ERROR_STATUS in errors.ts. */
export const POLYGON_REWARDS_ERRORS = {
  /** The configured validator has no ValidatorShare on the StakeManager, or the contract says another id. */
  POLYGON_VALIDATOR_NOT_FOUND: 503,
  /** Retired (now NOT_INDEXED_YET); kept because codes are append-only (docs/style.md §3). */
  POLYGON_APR_NOT_READY: 503,
} as const;
