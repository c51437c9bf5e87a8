import { secp256k1 } from "@noble/curves/secp256k1.js";
import { DECIMALS, parseUnits } from "@stake/db/units";
import { bytesToHex, type Hex, hashDomain, hashTypedData, hexToBytes, keccak256, toBytes } from "viem";
import { privateKeyToAddress, publicKeyToAddress } from "viem/accounts";
import { EVM_ADDRESS } from "../../chains/evm.ts";
import { BuilderError } from "../../errors.ts";

/**
 * Pure builders for Hyperliquid's user-signed staking actions (tokenDelegate, cDeposit, cWithdraw) and the
 * EIP-712 digest / signer recovery the chain uses for them (docs/chains/hyperliquid.md §1, §7). No I/O, no clock: the
 * nonce and the chain parameters are inputs.
 *
 * Hash-critical invariants:
 * - The field order of each struct type is part of its type hash (TYPES below; never reorder).
 * - `validator` is lower-case hex (EIP-712 ignores case, but ethers rejects a non-EIP-55 mixed case).
 * - `wei` is an integer count of 10^-8 HYPE sent as a JSON number, so it must stay ≤ 2^53−1 to be exact.
 * - `nonce` in the request body equals `action.nonce`; the domain chainId is `parseInt(signatureChainId, 16)`.
 * - `type` and `signatureChainId` are not struct fields; signers ignore them in the message.
 */

export type HyperliquidNetwork = "mainnet" | "testnet";
export type HyperliquidChainName = "Mainnet" | "Testnet";

export interface ChainParams {
  hyperliquidChain: HyperliquidChainName;
  /** Hex chain id of the wallet's signing domain; any value works on Hyperliquid if the domain matches. */
  signatureChainId: string;
}

/**
 * Mainnet signs with Arbitrum One's id (what the Hyperliquid frontend uses, and what MetaMask on Arbitrum
 * accepts); testnet with Arbitrum Sepolia's, as the official SDKs do.
 */
export const CHAIN_PARAMS: Readonly<Record<HyperliquidNetwork, Readonly<ChainParams>>> = Object.freeze({
  mainnet: Object.freeze({ hyperliquidChain: "Mainnet", signatureChainId: "0xa4b1" }),
  testnet: Object.freeze({ hyperliquidChain: "Testnet", signatureChainId: "0x66eee" }),
});

export const HYPE_DECIMALS = DECIMALS.hype;
/** Largest wei a JSON number carries exactly (2^53−1); also far below uint64's maximum. */
export const MAX_JSON_SAFE_WEI = BigInt(Number.MAX_SAFE_INTEGER);

interface Field {
  name: string;
  type: "string" | "address" | "uint64" | "bool";
}

export const TYPES = {
  tokenDelegate: {
    primaryType: "HyperliquidTransaction:TokenDelegate",
    fields: [
      { name: "hyperliquidChain", type: "string" },
      { name: "validator", type: "address" },
      { name: "wei", type: "uint64" },
      { name: "isUndelegate", type: "bool" },
      { name: "nonce", type: "uint64" },
    ],
  },
  cDeposit: {
    primaryType: "HyperliquidTransaction:CDeposit",
    fields: [
      { name: "hyperliquidChain", type: "string" },
      { name: "wei", type: "uint64" },
      { name: "nonce", type: "uint64" },
    ],
  },
  cWithdraw: {
    primaryType: "HyperliquidTransaction:CWithdraw",
    fields: [
      { name: "hyperliquidChain", type: "string" },
      { name: "wei", type: "uint64" },
      { name: "nonce", type: "uint64" },
    ],
  },
} as const satisfies Record<string, { primaryType: string; fields: readonly Field[] }>;

export type ActionType = keyof typeof TYPES;

export interface TokenDelegateAction {
  type: "tokenDelegate";
  signatureChainId: string;
  hyperliquidChain: HyperliquidChainName;
  validator: string;
  wei: number;
  isUndelegate: boolean;
  nonce: number;
}

export interface TransferAction {
  type: "cDeposit" | "cWithdraw";
  signatureChainId: string;
  hyperliquidChain: HyperliquidChainName;
  wei: number;
  nonce: number;
}

export type StakingAction = TokenDelegateAction | TransferAction;

export interface Eip712Domain {
  name: "HyperliquidSignTransaction";
  version: "1";
  chainId: number;
  verifyingContract: "0x0000000000000000000000000000000000000000";
}

/** The spec's decoded unsigned transaction. `types` holds only the primary type (ethers rejects EIP712Domain). */
export interface UnsignedTransaction {
  action: StakingAction;
  domain: Eip712Domain;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  nonce: number;
}

export function domainFor(signatureChainId: string): Eip712Domain {
  return {
    name: "HyperliquidSignTransaction",
    version: "1",
    chainId: Number.parseInt(signatureChainId, 16),
    verifyingContract: "0x0000000000000000000000000000000000000000",
  };
}

function unsigned(action: StakingAction): UnsignedTransaction {
  const t = TYPES[action.type];
  return {
    action,
    domain: domainFor(action.signatureChainId),
    types: { [t.primaryType]: t.fields.map((f) => ({ name: f.name, type: f.type })) },
    primaryType: t.primaryType,
    nonce: action.nonce,
  };
}

function checkCommon(wei: bigint, nonce: number): number {
  if (wei < 1n || wei > MAX_JSON_SAFE_WEI) throw new BuilderError(`wei out of range: ${wei}`, "amount");
  if (!Number.isSafeInteger(nonce) || nonce < 1)
    throw new BuilderError("nonce must be a positive integer", "nonce");
  return Number(wei);
}

/** delegate (isUndelegate false) or undelegate (true) `wei` to `validator`. */
export function buildTokenDelegate(args: {
  chain: ChainParams;
  validator: string;
  wei: bigint;
  isUndelegate: boolean;
  nonce: number;
}): UnsignedTransaction {
  if (!EVM_ADDRESS.test(args.validator)) throw new TypeError("validator must be 0x + 40 hex");
  const wei = checkCommon(args.wei, args.nonce);
  return unsigned({
    type: "tokenDelegate",
    signatureChainId: args.chain.signatureChainId,
    hyperliquidChain: args.chain.hyperliquidChain,
    validator: args.validator.toLowerCase(),
    wei,
    isUndelegate: args.isUndelegate,
    nonce: args.nonce,
  });
}

/** cDeposit: spot → staking (instant). */
export function buildCDeposit(args: { chain: ChainParams; wei: bigint; nonce: number }): UnsignedTransaction {
  return buildTransfer("cDeposit", args);
}

/** cWithdraw: staking → spot (enters the 7-day queue). */
export function buildCWithdraw(args: {
  chain: ChainParams;
  wei: bigint;
  nonce: number;
}): UnsignedTransaction {
  return buildTransfer("cWithdraw", args);
}

function buildTransfer(
  type: "cDeposit" | "cWithdraw",
  args: { chain: ChainParams; wei: bigint; nonce: number },
): UnsignedTransaction {
  const wei = checkCommon(args.wei, args.nonce);
  return unsigned({
    type,
    signatureChainId: args.chain.signatureChainId,
    hyperliquidChain: args.chain.hyperliquidChain,
    wei,
    nonce: args.nonce,
  });
}

export function encodeUnsigned(tx: UnsignedTransaction): string {
  return Buffer.from(JSON.stringify(tx), "utf8").toString("base64");
}

// ---- EIP-712 (hashing by viem; recovery and signing by noble, synchronously) ----

const bytes = (h: Hex) => hexToBytes(h);

/** keccak256 of the primary type's encodeType string (EIP-712 `typeHash`), pinned by the golden vectors. */
export function typeHash(type: ActionType): Uint8Array {
  const t = TYPES[type];
  return bytes(
    keccak256(toBytes(`${t.primaryType}(${t.fields.map((f) => `${f.type} ${f.name}`).join(",")})`)),
  );
}

const DOMAIN_TYPES = {
  EIP712Domain: [
    { name: "name", type: "string" },
    { name: "version", type: "string" },
    { name: "chainId", type: "uint256" },
    { name: "verifyingContract", type: "address" },
  ],
} as const;

export function domainSeparator(chainId: number): Uint8Array {
  const domain = { ...domainFor(`0x${chainId.toString(16)}`), chainId: BigInt(chainId) };
  return bytes(hashDomain({ domain, types: DOMAIN_TYPES }));
}

/** keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(action)), with the domain chainId from the action. */
export function actionDigest(action: StakingAction): Uint8Array {
  const t = TYPES[action.type];
  return bytes(
    hashTypedData({
      domain: domainFor(action.signatureChainId),
      types: { [t.primaryType]: t.fields },
      primaryType: t.primaryType,
      message: action as unknown as Record<string, unknown>,
    }),
  );
}

export interface RsvSignature {
  r: string;
  s: string;
  v: number;
}

/**
 * Recovers the signing address (lower-case). Accepts v as 27/28 or 0/1 and r/s with or without leading
 * zeros (the Python SDK strips them), compared as integers. Throws on a malformed or invalid signature.
 */
export function recoverSigner(digest: Uint8Array, sig: RsvSignature): string {
  const hex = /^0x[0-9a-fA-F]{1,64}$/;
  if (!hex.test(sig.r) || !hex.test(sig.s)) throw new TypeError("r and s must be 0x + 1..64 hex digits");
  const recovery = sig.v >= 27 ? sig.v - 27 : sig.v;
  if (recovery !== 0 && recovery !== 1) throw new TypeError("v must be 27, 28, 0 or 1");
  const signature = new secp256k1.Signature(BigInt(sig.r), BigInt(sig.s), recovery);
  return publicKeyToAddress(bytesToHex(signature.recoverPublicKey(digest).toBytes(false))).toLowerCase();
}

/** Signs a digest the Ethereum way (used by tests and the simulated node's demo wallets). */
export function signDigest(digest: Uint8Array, privateKey: Uint8Array): RsvSignature {
  const sig = secp256k1.sign(digest, privateKey, { prehash: false, format: "recovered" });
  return {
    r: bytesToHex(sig.subarray(1, 33)),
    s: bytesToHex(sig.subarray(33, 65)),
    v: (sig[0] ?? 0) + 27,
  };
}

export function addressOf(privateKey: Uint8Array): string {
  return privateKeyToAddress(bytesToHex(privateKey)).toLowerCase();
}

// ---- amounts ----

export const MIN_AMOUNT_WEI = 10_000_000n; // 0.1 HYPE, the service's own minimum (spec)
export const SPEC_MAX_AMOUNT = 9007199254740991;

/**
 * Expands the shortest decimal form JS gives a number (`String(n)`, which may be `1e-9` or `1.5e+21`) to
 * plain digits, so the amount is read from the decimal text the client sent rather than by float maths.
 */
export function plainDecimal(n: number): string {
  const text = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!m) throw new TypeError(`not a finite number: ${text}`);
  const [, sign = "", int = "", frac = "", exp = "0"] = m;
  const digits = int + frac;
  const point = int.length + Number(exp);
  let out: string;
  if (point <= 0) out = `0.${"0".repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + "0".repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, "");
  if (out.includes(".")) out = out.replace(/0+$/, "").replace(/\.$/, "");
  return sign + out;
}

export type AmountResult = { ok: true; wei: bigint; text: string } | { ok: false; reason: string };

/** HYPE amount (a JSON number) → wei = amount × 10^8, with the reason when it is refused. */
export function parseHypeAmount(n: number): AmountResult {
  if (!Number.isFinite(n)) return { ok: false, reason: "Must be a finite number" };
  const text = plainDecimal(n);
  if (text.startsWith("-") || n === 0) return { ok: false, reason: "Must be at least 0.1" };
  let wei: bigint;
  try {
    wei = parseUnits(text, HYPE_DECIMALS);
  } catch {
    return { ok: false, reason: `At most ${HYPE_DECIMALS} decimal places (1 wei = 0.00000001 HYPE)` };
  }
  if (wei < MIN_AMOUNT_WEI) return { ok: false, reason: "Must be at least 0.1" };
  if (n > SPEC_MAX_AMOUNT) return { ok: false, reason: `Must be at most ${SPEC_MAX_AMOUNT}` };
  if (wei > MAX_JSON_SAFE_WEI) {
    return {
      ok: false,
      reason:
        "Too large: amount × 10^8 (wei) must not exceed 9007199254740991, the largest integer a JSON number " +
        "carries exactly, so the maximum is 90071992.54740991 HYPE",
    };
  }
  return { ok: true, wei, text };
}
