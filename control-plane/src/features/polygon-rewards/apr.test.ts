import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { aprPercent, REWARD_PRECISION, ratePrecision, windowSlackS } from "./apr.ts";

const YEAR = 31_536_000n;
const snap = (timestamp: bigint, rewardPerShare: bigint, exchangeRate = 10n ** 29n) => ({
  block: timestamp,
  timestamp,
  rewardPerShare,
  exchangeRate,
});

describe("Polygon APR arithmetic (docs/chains/polygon-sui.md §1.5)", () => {
  it("5 % of a POL per POL staked over a year is 5; the same over one day annualises to 1825", () => {
    const gain = (REWARD_PRECISION * 5n) / 100n;
    assert.equal(aprPercent(snap(0n, 7n), snap(YEAR, 7n + gain), ratePrecision(18n)), 5);
    assert.equal(aprPercent(snap(0n, 0n), snap(86_400n, gain), ratePrecision(18n)), 1825);
  });

  it("a share worth 2 POL (exchange rate 2 × precision) halves the return per POL; foundation ids use precision 100", () => {
    const gain = (REWARD_PRECISION * 5n) / 100n;
    assert.equal(aprPercent(snap(0n, 0n, 2n * 10n ** 29n), snap(YEAR, gain), ratePrecision(18n)), 2.5);
    assert.equal(aprPercent(snap(0n, 0n, 100n), snap(YEAR, gain), ratePrecision(7n)), 5);
  });

  it("no elapsed time or a zero exchange rate is null, not a division by zero", () => {
    assert.equal(aprPercent(snap(5n, 0n), snap(5n, 10n), ratePrecision(18n)), null);
    assert.equal(aprPercent(snap(0n, 0n, 0n), snap(YEAR, 10n), ratePrecision(18n)), null);
  });

  it("keeps 12 decimals from integers: no float error accumulates", () => {
    // 1 wei of reward per 1e25 per share-unit over a year: 1e-25 × 100 = 1e-23 %, below 12 decimals → 0.
    assert.equal(aprPercent(snap(0n, 0n), snap(YEAR, 1n), ratePrecision(18n)), 0);
    const third = REWARD_PRECISION / 3n;
    assert.equal(aprPercent(snap(0n, 0n), snap(YEAR, third), ratePrecision(18n)), 33.333333333333);
  });

  it("a window may start up to 5 % of its length early", () => {
    assert.equal(windowSlackS(1), 4320n);
    assert.equal(windowSlackS(30), 129_600n);
  });
});
