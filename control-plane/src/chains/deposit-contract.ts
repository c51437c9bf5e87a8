import { decodeEventLog, encodeFunctionData, type Hex, parseAbi, toEventSelector } from "viem";
import { bytesOf, hexOf } from "./evm.ts";

/** The deposit contract's and the batch depositor's ABI: calls the provisioning builds, the event the data area reads (docs/chains/ethereum.md §2). */
export const DEPOSIT_ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root) payable",
  "event DepositEvent(bytes pubkey, bytes withdrawal_credentials, bytes amount, bytes signature, bytes index)",
]);
/** Attestant BatchValidatorDepositor (docs/chains/ethereum.md §2). */
export const BATCH_DEPOSIT_ABI = parseAbi([
  "function deposit(bytes[] pubkeys, bytes[] withdrawal_credentials, bytes[] signatures, bytes32[] deposit_data_roots, uint256[] collateral) payable",
]);

export const DEPOSIT_EVENT_TOPIC = toEventSelector(DEPOSIT_ABI[1]);

/** The fields of one deposit as calldata wants them: 0x-hex bytes. */
export interface DepositFields {
  pubkey: string;
  withdrawalCredentials: string;
  signature: string;
  depositDataRoot: string;
}

const hex = (h: string) => hexOf(bytesOf(h)) as Hex;

/** `deposit(pubkey, withdrawal_credentials, signature, deposit_data_root)` calldata (420 bytes). */
export function encodeDepositCall(d: DepositFields): Hex {
  return encodeFunctionData({
    abi: DEPOSIT_ABI,
    functionName: "deposit",
    args: [hex(d.pubkey), hex(d.withdrawalCredentials), hex(d.signature), hex(d.depositDataRoot)],
  });
}

/** The batch depositor's `deposit(bytes[], bytes[], bytes[], bytes32[], uint256[])` calldata; amounts in wei. */
export function encodeBatchDepositCall(deposits: readonly DepositFields[], wei: readonly bigint[]): Hex {
  return encodeFunctionData({
    abi: BATCH_DEPOSIT_ABI,
    functionName: "deposit",
    args: [
      deposits.map((d) => hex(d.pubkey)),
      deposits.map((d) => hex(d.withdrawalCredentials)),
      deposits.map((d) => hex(d.signature)),
      deposits.map((d) => hex(d.depositDataRoot)),
      wei,
    ],
  });
}

/** A `DepositEvent` log's pubkey, credentials and amount (Gwei; the event carries it as 8 bytes little-endian). */
export function decodeDepositEvent(log: { data: string; topics: readonly string[] }): {
  pubkey: string;
  withdrawalCredentials: string;
  amountGwei: bigint;
} {
  const { args } = decodeEventLog({
    abi: DEPOSIT_ABI,
    eventName: "DepositEvent",
    data: log.data as Hex,
    topics: log.topics as [Hex, ...Hex[]],
  });
  return {
    pubkey: args.pubkey,
    withdrawalCredentials: args.withdrawal_credentials,
    amountGwei: Buffer.from(bytesOf(args.amount)).readBigUInt64LE(0),
  };
}
