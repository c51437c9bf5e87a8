import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { DECIMALS, formatUnits, parseUnits, UnitsError, unitsToNumber } from "./units.ts";

test("parse and format are exact inverses", () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: 2n ** 128n }), fc.integer({ min: 0, max: 24 }), (v, d) => {
      assert.equal(parseUnits(formatUnits(v, d), d), v);
    }),
  );
  assert.equal(formatUnits(1_500_000_000n, DECIMALS.sol), "1.5");
  assert.equal(formatUnits(-5n, 2), "-0.05");
  assert.equal(formatUnits(0n, 18), "0");
  assert.equal(parseUnits("0.1", DECIMALS.hype), 10_000_000n);
  assert.equal(parseUnits("32", DECIMALS.gwei), 32_000_000_000n);
  assert.equal(parseUnits("1.230000000000", 9), 1_230_000_000n, "trailing zeros beyond the unit are fine");
});

test("refuses what it cannot represent exactly", () => {
  for (const bad of ["", "-1", "1e9", "0x10", "1.", ".5", "1,5", " "]) {
    assert.throws(() => parseUnits(bad, 9), UnitsError, bad);
  }
  assert.throws(() => parseUnits("0.0000000001", 9), /more than 9 decimals/);
});

test("a JSON number comes from the decimal text, not float arithmetic", () => {
  assert.equal(unitsToNumber(3n, 1), 0.3, "0.1 * 3 would be 0.30000000000000004");
  assert.equal(unitsToNumber(123_456_789_012_345_678n, 18), Number("0.123456789012345678"));
});
