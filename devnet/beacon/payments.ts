/** What the proposer of a slot's block received on the execution layer: the devnet's own record. */
export interface ElPayment {
  slot: number;
  blockNumber: number;
  proposerIndex: number;
  pubkey: string;
  /** The proposer's fee recipient (lower case): where the payment or the priority fees went. */
  feeRecipient: string;
  /** The builder (the payload's fee recipient) of a builder block; null for a block built locally. */
  builder: string | null;
  mevWei: bigint;
  priorityFeeWei: bigint;
}
