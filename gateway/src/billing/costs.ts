import { formatCoins, usdToBaseUnits } from "@stake/db/coin";

/**
 * `convert` once per distinct key: a gateway meets a handful of prices and costs, so each is converted on
 * its first request only. Bounded all the same (cleared past 10,000 keys).
 */
function memo<K, V>(convert: (key: K) => V): (key: K) => V {
  const done = new Map<K, V>();
  return (key) => {
    let value = done.get(key);
    if (value === undefined) {
      if (done.size > 10_000) done.clear();
      value = convert(key);
      done.set(key, value);
    }
    return value;
  };
}

/** A price in USD at a coin rate, in coin base units. */
export function createCostOf() {
  const of = memo((key: string) => {
    const [usd, rate] = key.split("@") as [string, string];
    return usdToBaseUnits(usd, rate);
  });
  return (costInUsd: string, rate: string): bigint => of(`${costInUsd}@${rate}`);
}

/** A reservation's cost as the coin decimal string of `gateway-cost`. */
export const createCostFormatter = () => memo(formatCoins);
