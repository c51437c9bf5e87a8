import { DECIMALS, formatUnits, parseUnits } from "@stake/db/units";

// Coin amounts arrive as exact decimal strings; sums and differences are taken in integer base units, so
// 10 decimals never meet a float.

export const toUnits = (coins: string) => parseUnits(coins, DECIMALS.coin);
export const fromUnits = (units: bigint) => formatUnits(units, DECIMALS.coin);

/** The exact sum of coin amounts. */
export const sumCoins = (amounts: readonly string[]) =>
  fromUnits(amounts.reduce((s, a) => s + toUnits(a), 0n));

/** `a − b` exactly, or "—" when either is not a coin amount. */
export function subtractCoins(a: string, b: string): string {
  try {
    return fromUnits(toUnits(a) - toUnits(b));
  } catch {
    return "—";
  }
}
