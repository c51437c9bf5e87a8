/** Beacon-chain data area codes (besides VALIDATION_ERROR and the upstream ones). */
export const BEACON_DATA_ERRORS = {
  EPOCH_RANGE_INVALID: 400,
  DATE_RANGE_INVALID: 400,
  EPOCHS_NOT_INDEXED: 404,
} as const;
