import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { base58 } from "@scure/base";

/**
 * API-key format: `<prefix>_<base58 of 32 random bytes>` (256-bit secret). Only the SHA-256 hash and a short
 * display start are stored (unkey keys/v1.ts); the raw key is shown once, at issue time.
 * A fast hash is right here: the secret has 256 bits of entropy, so there is nothing to brute-force,
 * and the lookup sits on every authenticated request.
 */
export const KEY_PREFIXES = {
  staking: "stk",
  gateway: "gwk",
} as const;

export type KeyKind = keyof typeof KEY_PREFIXES;

export interface IssuedKey {
  /** The secret, to be shown once and never stored. */
  key: string;
  /** Hex SHA-256 of the whole key string: the lookup column. */
  hash: string;
  /** Prefix plus the first characters of the secret, safe to display. */
  start: string;
}

const SHAPES = Object.fromEntries(
  Object.entries(KEY_PREFIXES).map(([kind, prefix]) => [
    kind,
    new RegExp(`^${prefix}_[1-9A-HJ-NP-Za-km-z]{32,44}$`),
  ]),
) as Record<KeyKind, RegExp>;

/**
 * Whether `raw` has the shape of an issued key (prefix and base58 of 32 bytes). Checked before any lookup,
 * so a flood of junk keys costs neither a database query nor a cache entry.
 */
export function isKeyShaped(kind: KeyKind, raw: string): boolean {
  return SHAPES[kind].test(raw);
}

export function issueApiKey(kind: KeyKind): IssuedKey {
  const key = `${KEY_PREFIXES[kind]}_${base58.encode(randomBytes(32))}`;
  return { key, hash: hashApiKey(key), start: key.slice(0, KEY_PREFIXES[kind].length + 1 + 6) };
}

export function hashApiKey(key: string): string {
  // One-shot hash of the UTF-8 bytes (no Hash object): this runs on every authenticated request.
  return hash("sha256", key, "hex");
}

/** Constant-time equality of two hex digests of equal length (a length mismatch is not secret). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
