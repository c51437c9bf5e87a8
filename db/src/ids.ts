import { randomBytes } from "node:crypto";
import { base58 } from "@scure/base";

/**
 * Prefixed, random identifiers (unkey's id/generate.ts): the prefix tells a reader what an id names,
 * 16 random bytes make collisions a non-issue, and base58 keeps them copy-paste safe.
 */
export const ID_PREFIXES = {
  organisation: "org",
  apiKey: "key",
  request: "req",
  gatewayUser: "gwu",
  party: "party",
  gatewayKey: "gwk",
  provider: "prv",
  reservation: "rsv",
  ledgerEntry: "led",
  coinRate: "rate",
  delegation: "dlg",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

// One getrandom call per 256 ids instead of one per id: ids are minted on the gateway's hot path.
const POOL_SIZE = 16 * 256;
let pool = randomBytes(POOL_SIZE);
let offset = 0;

export function newId(kind: IdKind): string {
  if (offset === POOL_SIZE) {
    pool = randomBytes(POOL_SIZE);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 16);
  offset += 16;
  return `${ID_PREFIXES[kind]}_${base58.encode(bytes)}`;
}

const BASE58_CHARS = "1-9A-HJ-NP-Za-km-z";
/** 16 random bytes encode to 21 or 22 base58 characters (fewer only with leading zero bytes). */
const ID_BODY = `[${BASE58_CHARS}]{16,22}`;

export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIXES[kind]}_${ID_BODY}$`);
}

export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}
