/** Beacon-chain data area codes (besides VALIDATION_ERROR and the upstream ones). */
export const BEACON_DATA_ERRORS = {
  /** Retired (now VALIDATION_ERROR on end_epoch); kept because codes are append-only (docs/style.md §3). */
  EPOCH_RANGE_INVALID: 400,
  /** Retired (now VALIDATION_ERROR on end_date); kept because codes are append-only. */
  DATE_RANGE_INVALID: 400,
  /** Retired (now 503 NOT_INDEXED_YET with Retry-After); kept because codes are append-only. */
  EPOCHS_NOT_INDEXED: 404,
  /** The organisation has registered BEACON_REGISTERED_PER_ORGANISATION pubkeys already (our addition). */
  REGISTRATION_LIMIT_REACHED: 409,
  /** Neither the beacon chain's registry nor its pending deposits know the pubkey (our addition). */
  VALIDATOR_UNKNOWN: 422,
} as const;
