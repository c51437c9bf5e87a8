import type { Hex } from "viem";

/** The simulated chain's state and block shapes (chain.ts), as the Beacon API serves them (server.ts). */
export const FAR_FUTURE = 18446744073709551615n;
export const GWEI = 1_000_000_000n;
export const MIN_ACTIVATION = 32n * GWEI;
export const MAX_EFFECTIVE_ELECTRA = 2048n * GWEI;
export const EPOCHS_PER_YEAR = 82_125n;

export interface ChainValidator {
  pubkey: string;
  withdrawalCredentials: string;
  balance: bigint;
  status: string;
  eligibilityEpoch: bigint;
  activationEpoch: bigint;
  exitEpoch: bigint;
  withdrawableEpoch: bigint;
}

export interface PendingDeposit {
  pubkey: string;
  withdrawal_credentials: string;
  amount: bigint;
  signature: string;
  slot: number;
}

export interface State {
  validators: ChainValidator[];
  pending: PendingDeposit[];
  exitRequests: number[];
  /** Electra pending partial withdrawals (EIP-7002), paid by the sweep from `withdrawableEpoch` (exits.ts). */
  partials: { index: number; amount: bigint; withdrawableEpoch: bigint }[];
  /** EIP-7251 pending consolidations (validator indices), processed once the source is withdrawable. */
  consolidations: { source: number; target: number }[];
  withdrawalIndex: number;
  nextSweep: number;
  /** Electra's exit and consolidation churn bookkeeping (exits.ts). */
  churn: {
    earliestExitEpoch: bigint;
    exitBalanceToConsume: bigint;
    earliestConsolidationEpoch: bigint;
    consolidationBalanceToConsume: bigint;
  };
}

export interface Withdrawal {
  index: string;
  validator_index: string;
  address: string;
  amount: string;
}

export type { ElPayment } from "./payments.ts";

export interface Block {
  slot: number;
  /** The fork the block belongs to (the `Eth-Consensus-Version` of its v2 answer). */
  version: "deneb" | "electra";
  root: Hex;
  parentRoot: Hex;
  proposerIndex: number;
  payload: {
    parent_hash: string;
    fee_recipient: string;
    state_root: string;
    receipts_root: string;
    logs_bloom: string;
    prev_randao: string;
    block_number: string;
    gas_limit: string;
    gas_used: string;
    timestamp: string;
    extra_data: string;
    base_fee_per_gas: string;
    block_hash: string;
    transactions: string[];
    withdrawals: Withdrawal[];
    blob_gas_used: string;
    excess_blob_gas: string;
  };
  requests: {
    deposits: {
      pubkey: string;
      withdrawal_credentials: string;
      amount: string;
      signature: string;
      index: string;
    }[];
    withdrawals: { source_address: string; validator_pubkey: string; amount: string }[];
    consolidations: { source_address: string; source_pubkey: string; target_pubkey: string }[];
  };
  /** Signed voluntary exits the block carries (from the node's pool). */
  voluntaryExits?: { message: { epoch: string; validator_index: string }; signature: string }[];
}
