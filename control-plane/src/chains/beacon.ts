import { decodeEventLog, encodeFunctionData, type Hex, parseAbi, toEventSelector } from "viem";
import { z } from "zod";
import { BuilderError } from "../errors.ts";
import { bytesOf, hexOf } from "./evm.ts";

/**
 * Beacon-chain primitives shared by provisioning and the data area: the BLS public key format, withdrawal
 * credentials, and the deposit contract's ABI (docs/chains/ethereum.md §1.2, §1.5, §2).
 */

/** A 48-byte BLS public key, with or without `0x`; always handed on as `0x` + lower-case hex. */
export const blsPubkey = () =>
  z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{96}$/, "must be a 48-byte hex BLS public key")
    .transform((s) => `0x${s.replace(/^0x/, "").toLowerCase()}`);

/**
 * Execution withdrawal credentials: prefix ‖ 11 zero bytes ‖ address. 0x01 caps the effective balance at
 * 32 ETH; 0x02 (EIP-7251, compounding) at 2048 ETH. The deposit contract never checks them.
 */
export function withdrawalCredentials(address: string, compounding: boolean): Uint8Array {
  const addr = bytesOf(address);
  if (addr.length !== 20) throw new BuilderError("withdrawal address must be 20 bytes", "withdrawalAddress");
  const out = new Uint8Array(32);
  out[0] = compounding ? 0x02 : 0x01;
  out.set(addr, 12);
  return out;
}

/** The execution address of 0x01/0x02 credentials (lower-case); null for 0x00 (BLS) ones. */
export const withdrawalAddressOf = (credentials: string): string | null =>
  /^0x0[12]/i.test(credentials) ? `0x${credentials.slice(-40).toLowerCase()}` : null;

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
