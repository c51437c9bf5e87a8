import { randomBytes } from "node:crypto";

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
  /** Not `gwk`: that is the secret's prefix (db/src/api-key.ts), and an id must not read as a secret. */
  gatewayKey: "gkid",
  provider: "prv",
  reservation: "rsv",
  ledgerEntry: "led",
  coinRate: "rate",
  delegation: "dlg",
  webhookEndpoint: "whep",
  /** A webhook event: its id is the Standard Webhooks `webhook-id` (their examples use `msg_`). */
  webhookEvent: "msg",
  webhookDelivery: "whdl",
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
  return `${ID_PREFIXES[kind]}_${base58Of16(bytes)}`;
}

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const CODES = Array.from(ALPHABET, (c) => c.charCodeAt(0));
const LIMB = 58 ** 6;
// WEIGHTS[4 * i + j]: limb j (base 58^6, least significant first) of 256^(15 - i), the weight of byte i.
const WEIGHTS = Array.from({ length: 64 }, (_, k) => {
  const weight = 256n ** BigInt(15 - (k >> 2)) / BigInt(LIMB) ** BigInt(k & 3);
  return Number(weight % BigInt(LIMB));
});
const limbs = [0, 0, 0, 0];
const chars = new Array<number>(22).fill(0);

/**
 * Same string as @scure/base's `base58.encode` for 16 bytes (one '1' per leading zero byte, then the value),
 * without its generic O(n²) conversion: this runs twice per gateway request. Each limb sums at most
 * 16 · 255 · 58^6 < 2^48, so the float arithmetic is exact; 2^128 < 58^22, so 22 digits always suffice.
 */
export function base58Of16(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new RangeError(`expected 16 bytes, got ${bytes.length}`);
  let l0 = 0;
  let l1 = 0;
  let l2 = 0;
  let l3 = 0;
  for (let i = 0; i < 16; i++) {
    const b = bytes[i]!;
    l0 += b * WEIGHTS[4 * i]!;
    l1 += b * WEIGHTS[4 * i + 1]!;
    l2 += b * WEIGHTS[4 * i + 2]!;
    l3 += b * WEIGHTS[4 * i + 3]!;
  }
  let carry = Math.floor(l0 / LIMB);
  limbs[0] = l0 - carry * LIMB;
  l1 += carry;
  carry = Math.floor(l1 / LIMB);
  limbs[1] = l1 - carry * LIMB;
  l2 += carry;
  carry = Math.floor(l2 / LIMB);
  limbs[2] = l2 - carry * LIMB;
  limbs[3] = l3 + carry;
  for (let j = 0, pos = 22; j < 4; j++) {
    let r = limbs[j]!;
    for (let k = 0; k < 6 && pos > 0; k++) {
      const q = Math.floor(r / 58);
      chars[--pos] = CODES[r - q * 58]!;
      r = q;
    }
  }
  // The 22 digits are zero-padded; keep one leading '1' per leading zero byte instead.
  let ones = 0;
  while (ones < 22 && chars[ones] === CODES[0]) ones++;
  let zeros = 0;
  while (zeros < 16 && bytes[zeros] === 0) zeros++;
  return String.fromCharCode(...chars).slice(ones - zeros);
}

const BASE58_CHARS = "1-9A-HJ-NP-Za-km-z";
/** 16 random bytes encode to 21 or 22 base58 characters (fewer only with leading zero bytes). */
const ID_BODY = `[${BASE58_CHARS}]{16,22}`;

/** Prefixes ids were once minted with: those ids stay valid (gateway key ids were `gwk_`, the secrets' prefix, before they had their own). */
const FORMER_PREFIXES: Partial<Record<IdKind, string>> = { gatewayKey: "gwk" };

export function idPattern(kind: IdKind): RegExp {
  const prefixes = [ID_PREFIXES[kind], FORMER_PREFIXES[kind]].filter(Boolean).join("|");
  return new RegExp(`^(?:${prefixes})_${ID_BODY}$`);
}

export function isId(kind: IdKind, value: string): boolean {
  return idPattern(kind).test(value);
}
