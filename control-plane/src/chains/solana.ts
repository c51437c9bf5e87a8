import { base58 } from "@scure/base";
import { z } from "zod";

/** A 32-byte Solana address; `null` when the text is not base58 of exactly 32 bytes. */
export function decodePubkey(text: string): Uint8Array | null {
  if (text.length < 32 || text.length > 44) return null;
  try {
    const bytes = base58.decode(text);
    return bytes.length === 32 ? bytes : null;
  } catch {
    return null;
  }
}

/**
 * A Solana address (wallet, stake or vote account): base58 of 32 bytes, kept as given (base58 has one
 * spelling per key). On-curve is not required here: stake accounts derived with a seed are off the curve.
 */
export const solanaPubkey = () =>
  z.string().refine((s) => decodePubkey(s) !== null, "Must be a Solana address: base58 of 32 bytes");

/** The System program's id (docs/chains/solana.md §1.2). */
export const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111";

/**
 * Lamports a System program instruction moves into a new `account` (its second account key), read from the
 * instruction's data (docs/chains/solana.md §1.3): `CreateAccount` (tag 0: lamports u64 LE at 4) and
 * `CreateAccountWithSeed` (tag 3: base 32 B at 4, seed length u64 at 36, the seed, then lamports). Null for
 * any other instruction, another account, or data too short for its layout: the transaction is node input.
 */
export function fundedLamports(
  ix: { programId: string; accounts: readonly string[]; data: Uint8Array },
  account: string,
): bigint | null {
  if (ix.programId !== SYSTEM_PROGRAM_ID || ix.accounts[1] !== account || ix.data.length < 12) return null;
  const b = Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
  const tag = b.readUInt32LE(0);
  if (tag === 0) return b.readBigUInt64LE(4);
  if (tag !== 3 || b.length < 44) return null;
  const seedLength = b.readBigUInt64LE(36);
  if (seedLength > BigInt(b.length - 52)) return null;
  return b.readBigUInt64LE(44 + Number(seedLength));
}
