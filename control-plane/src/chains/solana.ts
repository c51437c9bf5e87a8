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
