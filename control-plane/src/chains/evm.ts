import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { DECIMALS } from "@stake/db/units";
import type { Address } from "viem";
import { z } from "zod";

/**
 * EVM primitives shared by every area that names an Ethereum-style account (Ethereum, Polygon's L1,
 * Hyperliquid): the address format, hex ↔ bytes, and the Ether units.
 */

/** `0x` + 40 hex digits, any case. */
export const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ADDRESS_MESSAGE = "Must be 0x followed by 40 hex digits";

/** `0x` + 40 hex digits, any case, compared lower-case: what every area's input and config accept. */
export const evmAddress = () =>
  z
    .string()
    .regex(EVM_ADDRESS, ADDRESS_MESSAGE)
    .transform((a) => a.toLowerCase() as Address);

/** An address already in its canonical lower-case form (what a signed Hyperliquid action must carry). */
export const lowerCaseEvmAddress = () =>
  z.string().regex(/^0x[0-9a-f]{40}$/, "Must be lower-case 0x followed by 40 hex digits");

/**
 * EIP-55 checksum form of a 20-byte hex address: a letter is upper-case where the nibble of
 * keccak256(lower-case hex) at its position is 8 or more. (Written here rather than taken from viem, whose
 * hundreds of modules every process would load through this file: config.ts imports it.)
 */
export function toChecksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = bytesToHex(keccak_256(utf8ToBytes(hex)));
  let out = "0x";
  for (let i = 0; i < hex.length; i++)
    out += Number.parseInt(hash[i] as string, 16) >= 8 ? hex[i]?.toUpperCase() : hex[i];
  return out;
}

/**
 * Accepts an all-lower-case or all-upper-case address, or a mixed-case one whose EIP-55 checksum is right
 * (a wrong checksum is a typo: where funds are sent to it, they are lost).
 */
export function isEthAddress(value: string): boolean {
  if (!EVM_ADDRESS.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(value) === value;
}

/** An address whose mixed case, if any, is a valid EIP-55 checksum (see `isEthAddress`); kept as given. */
export const checkedEvmAddress = () =>
  z.string().refine(isEthAddress, "must be a 0x address, lower-case or EIP-55 checksummed");

/** Lower-case `0x` hex of bytes. */
export const hexOf = (b: Uint8Array): string => `0x${bytesToHex(b)}`;
/** Bytes of a hex string, with or without `0x`. */
export const bytesOf = (h: string): Uint8Array => hexToBytes(h.startsWith("0x") ? h.slice(2) : h);

export const GWEI_PER_ETH = 10n ** BigInt(DECIMALS.gwei);
export const WEI_PER_GWEI = 10n ** BigInt(DECIMALS.eth - DECIMALS.gwei);
