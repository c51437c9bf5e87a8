/** Beacon-chain provisioning codes. Unknown and foreign resources are both 404, so ids do not leak. */
export const BEACON_ERRORS = {
  PROVISION_NOT_FOUND: 404,
  IDEMPOTENCY_KEY_REUSED: 409,
  VALIDATOR_NOT_COMPOUNDING: 400,
  VALIDATOR_NOT_ACTIVE: 409,
  BALANCE_CAP_EXCEEDED: 400,
  /** More validators provisioned and not yet deposited than ETH_PROVISION_QUOTA allows (our addition). */
  PROVISION_QUOTA_EXCEEDED: 409,
  /** Not active for SHARD_COMMITTEE_PERIOD epochs yet: the chain ignores its exit or request (our addition). */
  VALIDATOR_NOT_EXITABLE_YET: 409,
  /** EIP-7002 partial withdrawals still queued: the chain ignores an exit or consolidation until paid. */
  PENDING_PARTIAL_WITHDRAWALS: 409,
  /** A partial withdrawal that would take the balance below 32 ETH (the chain would cut it). */
  PARTIAL_WITHDRAWAL_TOO_LARGE: 400,
  /** A consolidation into a target without 0x02 credentials (the chain would ignore it). */
  TARGET_NOT_COMPOUNDING: 400,
  /** A switch to compounding of a validator that already has 0x02 credentials. */
  ALREADY_COMPOUNDING: 400,
} as const;
