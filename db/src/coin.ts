import { DECIMALS, formatUnits, parseUnits } from "./units.ts";

/**
 * Ledger-coin arithmetic without floats (docs/architecture.md §5). The coin has 10 decimals; amounts are bigint base
 * units internally and decimal strings on the wire.
 */
export const COIN_DECIMALS = DECIMALS.coin;
/** Redis keeps balances as int64 (HINCRBY): the ceiling of any balance, about 922 million coins. */
export const MAX_BASE_UNITS = 2n ** 63n - 1n;

const DECIMAL = /^(\d{1,30})(?:\.(\d{1,30}))?$/;

/** A non-negative decimal string as an exact fraction `digits / 10^scale`. */
export function parseDecimal(value: string): { digits: bigint; scale: number } {
  const m = DECIMAL.exec(value.trim());
  if (!m) throw new RangeError(`not a non-negative decimal: ${JSON.stringify(value)}`);
  const frac = m[2] ?? "";
  return { digits: BigInt((m[1] ?? "0") + frac), scale: frac.length };
}

/** "1.5" coins → 15000000000n base units; more than 10 decimals is refused rather than rounded. */
export function coinsToBaseUnits(coins: string): bigint {
  const units = parseUnits(coins, COIN_DECIMALS);
  if (units > MAX_BASE_UNITS) throw new RangeError(`amount too large: ${coins}`);
  return units;
}

/** 15000000000n → "1.5"; exact. */
export function formatCoins(units: bigint): string {
  return formatUnits(units, COIN_DECIMALS);
}

/**
 * Cost of one request in coin base units: costInUSD / usdPerCoin, rounded UP to the next base unit so
 * the operator is never undercharged by rounding. Both inputs are decimal strings (Postgres numerics).
 */
export function usdToBaseUnits(costInUsd: string, usdPerCoin: string): bigint {
  const usd = parseDecimal(costInUsd);
  const rate = parseDecimal(usdPerCoin);
  if (rate.digits === 0n) throw new RangeError("coin rate must be positive");
  // (usd.digits / 10^usd.scale) / (rate.digits / 10^rate.scale) * 10^DECIMALS
  const num = usd.digits * 10n ** BigInt(rate.scale + COIN_DECIMALS);
  const den = rate.digits * 10n ** BigInt(usd.scale);
  return (num + den - 1n) / den;
}
