import assert from "node:assert/strict";
import { test } from "node:test";
import { coinsToBaseUnits, formatCoins, usdToBaseUnits } from "./coin.ts";

test("coin amounts convert exactly in both directions", () => {
  assert.equal(coinsToBaseUnits("1.5"), 15_000_000_000n);
  assert.equal(coinsToBaseUnits("0.0000000001"), 1n);
  assert.equal(formatCoins(15_000_000_000n), "1.5");
  assert.equal(formatCoins(coinsToBaseUnits("922337203.6854775807")), "922337203.6854775807");
  assert.throws(() => coinsToBaseUnits("0.00000000001"));
  assert.throws(() => coinsToBaseUnits("922337204"));
  assert.throws(() => coinsToBaseUnits("1e3"));
});

test("USD cost converts at the rate without floats, rounding up", () => {
  // 0.1 USD at 0.2 USD/coin = 0.5 coin (0.1/0.2 in floats is 0.5 but 0.3/0.1 is not 3)
  assert.equal(usdToBaseUnits("0.1", "0.2"), 5_000_000_000n);
  assert.equal(usdToBaseUnits("0.3", "0.1"), 30_000_000_000n);
  assert.equal(usdToBaseUnits("1", "3"), 3_333_333_334n);
  assert.equal(usdToBaseUnits("0", "3"), 0n);
  assert.throws(() => usdToBaseUnits("1", "0"));
});
