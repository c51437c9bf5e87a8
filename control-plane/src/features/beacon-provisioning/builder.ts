import { BuilderError } from "../../errors.ts";
import { type BlsKey, blsVerify } from "./bls.ts";
import type { BeaconNetwork } from "./networks.ts";
import { computeDepositDomain, computeSigningRoot, depositDataRoot, depositMessageRoot } from "./ssz.ts";

export const GWEI_PER_ETH = 1_000_000_000n;
export const WEI_PER_GWEI = 1_000_000_000n;
export const MIN_DEPOSIT_GWEI = 1n * GWEI_PER_ETH;
export const MIN_ACTIVATION_GWEI = 32n * GWEI_PER_ETH;
export const MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI = 2048n * GWEI_PER_ETH;

export const hexOf = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
export const bytesOf = (h: string) => new Uint8Array(Buffer.from(h.replace(/^0x/, ""), "hex"));

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

export interface SignedDeposit {
  pubkey: string;
  withdrawalCredentials: string;
  /** Gwei. */
  amount: bigint;
  signature: string;
  depositMessageRoot: string;
  depositDataRoot: string;
  forkVersion: string;
  networkName: string;
}

/**
 * Signs one deposit and checks it before anyone can store it: the signature must verify against the
 * recomputed signing root, and the data root is recomputed from the serialised fields. Pure: no I/O, no clock.
 */
export function buildDeposit(input: {
  key: BlsKey;
  withdrawalCredentials: Uint8Array;
  amountGwei: bigint;
  network: BeaconNetwork;
}): SignedDeposit {
  const { key, network } = input;
  if (input.amountGwei < MIN_DEPOSIT_GWEI)
    throw new BuilderError("deposit amount must be at least 1 ETH", "amount");
  const domain = computeDepositDomain(bytesOf(network.genesisForkVersion));
  const message = {
    pubkey: key.publicKey,
    withdrawalCredentials: input.withdrawalCredentials,
    amount: input.amountGwei,
  };
  const messageRoot = depositMessageRoot(message);
  const signature = key.sign(computeSigningRoot(messageRoot, domain));
  const deposit: SignedDeposit = {
    pubkey: hexOf(key.publicKey),
    withdrawalCredentials: hexOf(input.withdrawalCredentials),
    amount: input.amountGwei,
    signature: hexOf(signature),
    depositMessageRoot: hexOf(messageRoot),
    depositDataRoot: hexOf(depositDataRoot({ ...message, signature })),
    forkVersion: network.genesisForkVersion,
    networkName: network.name,
  };
  verifyDeposit(deposit, network);
  return deposit;
}

/** Recomputes both roots from the hex fields and verifies the BLS signature; throws on any mismatch. */
export function verifyDeposit(d: SignedDeposit, network: BeaconNetwork): void {
  const message = {
    pubkey: bytesOf(d.pubkey),
    withdrawalCredentials: bytesOf(d.withdrawalCredentials),
    amount: d.amount,
  };
  const messageRoot = depositMessageRoot(message);
  if (hexOf(messageRoot) !== d.depositMessageRoot) throw new Error("deposit_message_root mismatch");
  const signature = bytesOf(d.signature);
  if (hexOf(depositDataRoot({ ...message, signature })) !== d.depositDataRoot) {
    throw new Error("deposit_data_root mismatch");
  }
  const domain = computeDepositDomain(bytesOf(network.genesisForkVersion));
  if (!blsVerify(computeSigningRoot(messageRoot, domain), message.pubkey, signature)) {
    throw new Error("deposit signature does not verify");
  }
}

// --- ABI encoding (hand-written; tests decode it with viem) ---

const word = (n: bigint | number) => BigInt(n).toString(16).padStart(64, "0");
const padRight = (hex: string) => hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");
const strip = (h: string) => h.replace(/^0x/, "").toLowerCase();

/** ABI `bytes` tail: length word then the data right-padded to 32-byte words. */
const encodeBytes = (h: string) => word(strip(h).length / 2) + padRight(strip(h));

/** ABI `bytes[]`: length, per-element offsets (relative to the first offset word), then the elements. */
function encodeBytesArray(items: readonly string[]): string {
  const tails = items.map(encodeBytes);
  let offset = items.length * 32;
  const heads = tails.map((t) => {
    const w = word(offset);
    offset += t.length / 2;
    return w;
  });
  return word(items.length) + heads.join("") + tails.join("");
}

const encodeStaticArray = (items: readonly string[]) => word(items.length) + items.join("");

/** Dynamic arguments: head of offsets, then the tails in order. */
function encodeCall(selector: string, args: readonly ({ dynamic: string } | { static: string })[]): string {
  let offset = args.length * 32;
  let head = "";
  let tail = "";
  for (const a of args) {
    if ("static" in a) head += a.static;
    else {
      head += word(offset);
      tail += a.dynamic;
      offset += a.dynamic.length / 2;
    }
  }
  return `0x${selector}${head}${tail}`;
}

/** deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root). */
export const DEPOSIT_SELECTOR = "22895118";
/** Attestant BatchValidatorDepositor deposit(bytes[],bytes[],bytes[],bytes32[],uint256[]). */
export const BATCH_DEPOSIT_SELECTOR = "c09bb1db";

export interface DepositTx {
  to: string;
  /** Wei, decimal string (2048 ETH exceeds 2^53 wei). */
  value: string;
  data: string;
}

/** The deposit contract call for one validator (420 bytes of calldata). */
export function depositTx(d: SignedDeposit, network: BeaconNetwork): DepositTx {
  const data = encodeCall(DEPOSIT_SELECTOR, [
    { dynamic: encodeBytes(d.pubkey) },
    { dynamic: encodeBytes(d.withdrawalCredentials) },
    { dynamic: encodeBytes(d.signature) },
    { static: strip(d.depositDataRoot) },
  ]);
  return { to: network.depositContract, value: (d.amount * WEI_PER_GWEI).toString(), data };
}

/** One batch-depositor call for 1–100 validators; `value` is the sum of the per-item amounts in wei. */
export function batchDepositTx(deposits: readonly SignedDeposit[], network: BeaconNetwork): DepositTx {
  if (deposits.length < 1 || deposits.length > 100)
    throw new BuilderError("batch takes 1 to 100 deposits", "validatorsCount");
  const wei = deposits.map((d) => d.amount * WEI_PER_GWEI);
  const data = encodeCall(BATCH_DEPOSIT_SELECTOR, [
    { dynamic: encodeBytesArray(deposits.map((d) => d.pubkey)) },
    { dynamic: encodeBytesArray(deposits.map((d) => d.withdrawalCredentials)) },
    { dynamic: encodeBytesArray(deposits.map((d) => d.signature)) },
    { dynamic: encodeStaticArray(deposits.map((d) => strip(d.depositDataRoot))) },
    { dynamic: encodeStaticArray(wei.map(word)) },
  ]);
  return { to: network.batchDepositor, value: wei.reduce((a, b) => a + b, 0n).toString(), data };
}
