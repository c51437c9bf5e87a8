import { formatUnits } from "@stake/db/units";

/**
 * What a statement cell holds, exactly: amounts are integers of the chain's base unit (bigint), shown in
 * whole tokens by moving the decimal point, and valued by multiplying decimals as integers, never floats.
 */

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A decimal string as an integer and its scale: "2500.75" → {int: 250075n, scale: 2}. */
function scaled(text: string): { int: bigint; scale: number } {
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a decimal: ${text}`);
  const frac = m[3] ?? "";
  const int = BigInt(`${m[2]}${frac}`);
  return { int: m[1] ? -int : int, scale: frac.length };
}

/** Base units → whole tokens, exact ("-12.5", "0.000000001"). */
export const tokens = (base: bigint, decimals: number): string => formatUnits(base, decimals);

/**
 * The value of `base` units at `price` per whole token, exact: base × price ÷ 10^decimals with every digit
 * kept (a 9-decimal amount at an 18-decimal price has up to 27 decimals, trailing zeros dropped). Null
 * when there is no price: the cell stays empty, never a guess.
 */
export function valueAt(base: bigint, decimals: number, price: string | null): string | null {
  if (price === null) return null;
  const p = scaled(price);
  return formatUnits(base * p.int, decimals + p.scale);
}
