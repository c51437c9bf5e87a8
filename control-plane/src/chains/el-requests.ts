import { BuilderError } from "../errors.ts";

/**
 * The EIP-7002 and EIP-7251 request layouts, written once: encoded here for the transactions a withdrawal
 * address signs, decoded here from the system contracts' logs the beacon indexer reads.
 *
 * Unsigned execution-layer requests for a validator's withdrawal address to sign (docs/chains/ethereum.md
 * §3.3–3.5): EIP-7002 withdrawal requests (full exit, or a partial withdrawal of a 0x02 validator) and
 * EIP-7251 consolidation requests (consolidate into a 0x02 target, or switch to compounding when source =
 * target). The system contracts take raw calldata, no ABI; `value` is the fee read from the contract when
 * the transaction is built (an EOA cannot get an overpayment back, and an underpayment reverts). Pure.
 */
export const WITHDRAWAL_REQUEST_CONTRACT = "0x00000961Ef480Eb55e80D19ad83579A64c007002";
export const CONSOLIDATION_REQUEST_CONTRACT = "0x0000BBdDc7CE488642fb579F8B00f3a590007251";

export interface ElRequestTx {
  /** The validator's withdrawal address: only a transaction from it is honoured by the beacon chain. */
  from: string;
  to: string;
  data: string;
  /** Wei, decimal string. */
  value: string;
}

const UINT64_MAX = (1n << 64n) - 1n;
const pubkeyHex = (pubkey: string, field: string) => {
  const hex = pubkey.replace(/^0x/, "").toLowerCase();
  if (!/^[0-9a-f]{96}$/.test(hex)) throw new BuilderError("must be a 48-byte BLS public key", field);
  return hex;
};

/** EIP-7002: `pubkey(48) ‖ amount(8, big-endian Gwei)`, 56 bytes; amount 0 is a full exit. */
export function withdrawalRequestTx(input: {
  from: string;
  pubkey: string;
  amountGwei: bigint;
  feeWei: bigint;
}): ElRequestTx {
  if (input.amountGwei < 0n || input.amountGwei > UINT64_MAX)
    throw new BuilderError("amount out of range", "amount");
  const amount = input.amountGwei.toString(16).padStart(16, "0");
  return {
    from: input.from,
    to: WITHDRAWAL_REQUEST_CONTRACT,
    data: `0x${pubkeyHex(input.pubkey, "pubKey")}${amount}`,
    value: input.feeWei.toString(),
  };
}

/** EIP-7251: `source_pubkey(48) ‖ target_pubkey(48)`, 96 bytes; source = target switches to 0x02. */
export function consolidationRequestTx(input: {
  from: string;
  source: string;
  target: string;
  feeWei: bigint;
}): ElRequestTx {
  return {
    from: input.from,
    to: CONSOLIDATION_REQUEST_CONTRACT,
    data: `0x${pubkeyHex(input.source, "sourcePubKey")}${pubkeyHex(input.target, "targetPubKey")}`,
    value: input.feeWei.toString(),
  };
}

/** The system contracts' addresses in lower case, as a log's `address` is compared. */
export const EL_REQUEST_LOG_ADDRESSES = {
  withdrawals: WITHDRAWAL_REQUEST_CONTRACT.toLowerCase() as `0x${string}`,
  consolidations: CONSOLIDATION_REQUEST_CONTRACT.toLowerCase() as `0x${string}`,
} as const;

/**
 * An EIP-7002 contract log: `source_address(20) ‖ pubkey(48) ‖ amount(8, big-endian Gwei)`, 76 bytes (the
 * calldata above behind the sender). Null for data of another length: the log is node input.
 */
export function decodeWithdrawalRequestLog(
  data: string,
): { sourceAddress: string; pubkey: string; amountGwei: bigint } | null {
  if (data.length !== 2 + 76 * 2) return null;
  return {
    sourceAddress: `0x${data.slice(2, 42)}`,
    pubkey: `0x${data.slice(42, 138)}`,
    amountGwei: BigInt(`0x${data.slice(138)}`),
  };
}

/** An EIP-7251 contract log: `source_address(20) ‖ source_pubkey(48) ‖ target_pubkey(48)`, 116 bytes. */
export function decodeConsolidationRequestLog(
  data: string,
): { sourceAddress: string; source: string; target: string } | null {
  if (data.length !== 2 + 116 * 2) return null;
  return {
    sourceAddress: `0x${data.slice(2, 42)}`,
    source: `0x${data.slice(42, 138)}`,
    target: `0x${data.slice(138)}`,
  };
}
