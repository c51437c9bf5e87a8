import { keccak_256 } from "@noble/hashes/sha3.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** EIP-55 checksum form of a 20-byte hex address. */
export function toChecksumAddress(address: string): string {
  const lower = address.slice(2).toLowerCase();
  const digest = Buffer.from(keccak_256(new TextEncoder().encode(lower))).toString("hex");
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const c = lower[i] ?? "";
    out += Number.parseInt(digest[i] ?? "0", 16) >= 8 ? c.toUpperCase() : c;
  }
  return out;
}

/**
 * Accepts an all-lower-case or all-upper-case address, or a mixed-case one whose EIP-55 checksum is right
 * (a wrong checksum is a typo: the deposit contract never checks credentials, so funds would be lost).
 */
export function isEthAddress(value: string): boolean {
  if (!ADDRESS.test(value)) return false;
  const body = value.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return toChecksumAddress(value) === value;
}
