/** Beacon-chain provisioning codes. Unknown and foreign resources are both 404, so ids do not leak. */
export const BEACON_ERRORS = {
  PROVISION_NOT_FOUND: 404,
  IDEMPOTENCY_KEY_REUSED: 409,
  VALIDATOR_NOT_COMPOUNDING: 400,
  VALIDATOR_NOT_ACTIVE: 409,
  BALANCE_CAP_EXCEEDED: 400,
  /** More validators provisioned and not yet deposited than ETH_PROVISION_QUOTA allows (our addition). */
  PROVISION_QUOTA_EXCEEDED: 409,
} as const;
