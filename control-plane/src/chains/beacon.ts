import { z } from "zod";
import { BuilderError } from "../errors.ts";
import { bytesOf } from "./evm.ts";

/**
 * Beacon-chain primitives shared by provisioning, the data area and the accounts' scopes: the BLS public key
 * format and withdrawal credentials (docs/chains/ethereum.md §1.2, §1.5). The deposit contract's ABI is in
 * deposit-contract.ts, apart, since viem's ABI coder is a large load for a process that only checks scopes.
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
