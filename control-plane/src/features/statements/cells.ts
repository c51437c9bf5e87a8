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

/** A cell that is nothing but a decimal number, which no spreadsheet reads as a formula. */
const NUMBER_CELL = /^-?\d+(?:\.\d+)?$/;
/** Characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): a number is written as it is; any other text starting with = + - @ tab or CR
 * gets a leading `'` so a spreadsheet shows it instead of evaluating it; quotes where a comma, quote or
 * line break needs them. Null is the empty cell.
 */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  const safe = !NUMBER_CELL.test(value) && FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvLine = (cells: readonly (string | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
