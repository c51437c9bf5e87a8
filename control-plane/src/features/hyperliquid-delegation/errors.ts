/** Error codes of the delegation area (Hyperliquid); merged into ERROR_STATUS in errors.ts. */
export const HYPERLIQUID_ERRORS = {
  /** The signed transaction cannot be decoded or is not one of the three staking actions. */
  INVALID_SIGNED_TRANSACTION: 400,
  /** The action names the other Hyperliquid chain (Mainnet vs Testnet) than this deployment's. */
  WRONG_NETWORK: 400,
  /** The signature does not recover to an address (malformed r/s/v). */
  INVALID_SIGNATURE: 400,
  /** The same signer and nonce were already relayed: Hyperliquid would refuse it as a duplicate. */
  NONCE_ALREADY_USED: 409,
  /** Hyperliquid answered {"status":"err"}; its message is passed on. */
  EXCHANGE_REJECTED: 422,
} as const;
