/**
 * Decimal ↔ integer amounts, without floats (every amount is an integer of a chain's smallest unit inside,
 * a decimal string or, where a spec says number, a number made from that string at the edge).
 * Units per chain: SOL = 10^9 lamports, HYPE = 10^8 wei, ETH = 10^9 Gwei = 10^18 wei, POL = 10^18 wei,
 * SUI = 10^9 MIST, ledger coin = 10^10 base units.
 */
export const DECIMALS = { sol: 9, hype: 8, gwei: 9, eth: 18, pol: 18, sui: 9, coin: 10 } as const;

const DECIMAL = /^(\d{1,40})(?:\.(\d{1,40}))?$/;

/** Why a decimal was refused; thrown by `parseUnits`. */
export class UnitsError extends RangeError {
  override name = "UnitsError";
}

/**
 * "1.5" with 9 decimals → 1500000000n. More decimals than the unit has are refused, not rounded: an amount
 * the user typed is never silently changed.
 */
export function parseUnits(text: string, decimals: number): bigint {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new UnitsError(`not a non-negative decimal: ${JSON.stringify(text)}`);
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > decimals) throw new UnitsError(`more than ${decimals} decimals: ${text}`);
  return BigInt(m[1] ?? "0") * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, "0") || "0");
}

/** 1500000000n with 9 decimals → "1.5"; exact, no trailing zeros, "-" for negatives. */
export function formatUnits(value: bigint, decimals: number): string {
  const sign = value < 0n ? "-" : "";
  const abs = value < 0n ? -value : value;
  const unit = 10n ** BigInt(decimals);
  const frac = (abs % unit).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${sign}${abs / unit}${frac ? `.${frac}` : ""}`;
}

/**
 * A JSON number for a spec field typed `number`, from the exact decimal: the nearest double to the decimal
 * text (one rounding, at the very end), never the result of float arithmetic.
 */
export function unitsToNumber(value: bigint, decimals: number): number {
  return Number(formatUnits(value, decimals));
}
