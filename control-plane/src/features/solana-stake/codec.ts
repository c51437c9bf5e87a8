import { createHash } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519.js";
import { DECIMALS, formatUnits } from "@stake/db/units";

/**
 * True when the 32 bytes are a valid ed25519 point. Wallets and vote accounts are keypairs (on the curve);
 * seed-derived and program-derived addresses usually are not, and nobody can sign for an off-curve key.
 */
export function isOnCurve(bytes: Uint8Array): boolean {
  try {
    ed25519.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * `CreateAccountWithSeed` address: sha256(base ‖ seed ‖ owner). Not a PDA, so no off-curve requirement;
 * the seed is at most 32 bytes (the system program rejects longer ones with MaxSeedLengthExceeded).
 */
export function createWithSeed(base: Uint8Array, seed: string, owner: Uint8Array): Uint8Array {
  const seedBytes = Buffer.from(seed, "utf8");
  if (seedBytes.length > 32) throw new Error("seed longer than 32 bytes");
  return new Uint8Array(createHash("sha256").update(base).update(seedBytes).update(owner).digest());
}

/** compact-u16: 7 bits per byte, least significant group first, high bit = continuation (1–3 bytes). */
export function compactU16(n: number): number[] {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff) throw new Error(`compact-u16 out of range: ${n}`);
  const out: number[] = [];
  let rest = n;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return out;
    }
    out.push(low | 0x80);
  }
}

/** Little-endian byte writer for bincode-style instruction data. */
export class Writer {
  private readonly parts: Uint8Array[] = [];
  u8(v: number): this {
    this.parts.push(Uint8Array.of(v));
    return this;
  }
  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.parts.push(b);
    return this;
  }
  u64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(v);
    this.parts.push(b);
    return this;
  }
  i64(v: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigInt64LE(v);
    this.parts.push(b);
    return this;
  }
  bytes(v: Uint8Array | readonly number[]): this {
    this.parts.push(Uint8Array.from(v));
    return this;
  }
  done(): Uint8Array {
    return new Uint8Array(Buffer.concat(this.parts));
  }
}

/** Lamports → decimal SOL string (9 decimals, trailing zeros trimmed) without floating point. */
export const lamportsToSol = (lamports: bigint): string => formatUnits(lamports, DECIMALS.sol);
