/** Error codes of the Sui rewards area (chain C); merged into ERROR_STATUS in errors.ts. */
export const SUI_REWARDS_ERRORS = {
  /** The worker has not indexed any of the operator's pools yet (first start, or the node never answered). */
  SUI_INDEX_NOT_READY: 503,
} as const;
