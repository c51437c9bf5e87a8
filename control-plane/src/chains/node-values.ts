import { z } from "zod";
import { NodeAnswerRefused } from "../http/upstream.ts";

/**
 * The values chain nodes answer, as zod schemas every client's answer schema is built from: a node is
 * input like any other (docs/architecture.md §13). A value that breaks one refuses the whole answer
 * (`nodeAnswer`), so a lying or broken node stops the follower instead of writing a wrong row.
 */

/** The largest value of a Postgres `bigint` column (signed 64-bit): balances in Gwei, slots, block numbers. */
export const BIGINT_COLUMN_MAX = 2n ** 63n - 1n;
const BIGINT_COLUMN_MIN = -(2n ** 63n);
/** A Move `u64` (Sui amounts, kept in `numeric(20)`). */
export const U64_MAX = 2n ** 64n - 1n;
/** An EVM `uint256` (Polygon's share state, kept in `numeric(78)`). */
export const U256_MAX = 2n ** 256n - 1n;

const digitsOf = (max: bigint) => max.toString().length;

/**
 * A non-negative integer as a decimal string, at most `max` (default: a `bigint` column's range), handed
 * on as the string it was (the Beacon API's way of writing every number). `BigInt("-5")`, `"1e3"`, `" 7"`,
 * `"0x10"` are refused.
 */
export const decimalUint = (max: bigint = BIGINT_COLUMN_MAX) =>
  z
    .string()
    .regex(/^[0-9]+$/, "must be a non-negative decimal integer")
    // zod runs this check after a failed regex too: BigInt() only sees digits.
    .refine((s) => !/^[0-9]+$/.test(s) || (s.length <= digitsOf(max) + 2 && BigInt(s) <= max), {
      message: `must be at most ${max}`,
    });

/**
 * A signed integer as a decimal string within a `bigint` column, as a bigint (the Beacon API's rewards, where
 * penalties are negative). `"-0"`, `"+5"`, `"1e3"` are refused.
 */
export const decimalInt = () =>
  z
    .string()
    .regex(/^(?:0|-?[1-9][0-9]*)$/, "must be a decimal integer")
    .refine(
      (s) =>
        !/^-?[0-9]+$/.test(s) ||
        (s.length <= 20 && BigInt(s) <= BIGINT_COLUMN_MAX && BigInt(s) >= BIGINT_COLUMN_MIN),
      {
        message: "must fit a signed 64-bit integer",
      },
    )
    .transform((s) => BigInt(s));

/** `decimalUint` as a bigint; a safe non-negative JSON number is accepted too (some nodes write small u64s so). */
export const nodeBigint = (max: bigint = BIGINT_COLUMN_MAX) =>
  z
    .union([
      decimalUint(max),
      z
        .number()
        .int()
        .nonnegative()
        .max(Number.MAX_SAFE_INTEGER)
        .refine((n) => !Number.isSafeInteger(n) || BigInt(n) <= max),
    ])
    .transform((v) => BigInt(v));

/** A slot, epoch, index or time the code holds as a JS number: a decimal string or number below 2^53. */
export const nodeNumber = () => nodeBigint(BigInt(Number.MAX_SAFE_INTEGER)).transform(Number);

/**
 * A non-negative integer written as a JSON number (Solana's JSON-RPC, Hyperliquid's times): below 2^53,
 * past which `JSON.parse` has already rounded it, so it cannot be read exactly and is refused.
 */
export const jsonUint = () => z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** A non-negative decimal amount with an optional fraction, as a string ("12.5": Hyperliquid's HYPE). */
export const decimalAmount = () =>
  z.string().regex(/^[0-9]{1,30}(?:\.[0-9]{1,30})?$/, "must be a non-negative decimal amount");

/** A value a library (viem) has already decoded to a bigint: still the node's word, so range-checked. */
export const bigintInRange = (max: bigint = BIGINT_COLUMN_MAX) => z.bigint().min(0n).max(max);

/** `0x` + hex (`bytes` bytes of it when given), lower-cased. */
export const hexBytes = (bytes?: number) =>
  z
    .string()
    .regex(
      bytes === undefined ? /^0x(?:[0-9a-fA-F]{2})*$/ : new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`),
      bytes === undefined ? "must be 0x-prefixed hex bytes" : `must be ${bytes} bytes of 0x-prefixed hex`,
    )
    .transform((s) => s.toLowerCase());

/**
 * The last line before a write: every bigint in `value` (through arrays and objects) fits a signed
 * `bigint` column, else the node answers it was computed from are refused. Values a library decoded
 * (an execution node's gas and prices) are each in range, yet a product or sum of them need not be.
 */
export function assertFitsBigintColumns(value: unknown, where: { node: string; what: string }): void {
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "bigint") {
      if (v > BIGINT_COLUMN_MAX || v < BIGINT_COLUMN_MIN)
        throw new NodeAnswerRefused(
          `${where.node} answers give ${where.what} a value outside a bigint column`,
          new Error(`${path}: ${v}`),
        );
    } else if (Array.isArray(v)) {
      for (const [i, x] of v.entries()) walk(x, `${path}[${i}]`);
    } else if (v && typeof v === "object" && !(v instanceof Date))
      for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(value, "");
}

/**
 * `schema.parse(value)`, or a `NodeAnswerRefused` (502 to an API caller, an error line and no advance for a
 * follower) naming the node and the answer; the offending fields go to the log through the cause.
 */
export function nodeAnswer<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: { node: string; what: string },
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(answer)"}: ${i.message}`)
    .join("; ");
  throw new NodeAnswerRefused(`${where.node} answered a malformed ${where.what}`, new Error(fields));
}
