import assert from "node:assert/strict";
import { test } from "node:test";
import { csvCell, csvLine } from "../../http/csv.ts";
import { tokens, valueAt } from "./cells.ts";

test("tokens moves the decimal point exactly, negatives included", () => {
  assert.equal(tokens(1_500_000_000n, 9), "1.5");
  assert.equal(tokens(-1n, 9), "-0.000000001");
  assert.equal(tokens(123_456_789_012_345_678_901n, 18), "123.456789012345678901");
});

test("valueAt multiplies decimals as integers and leaves no price empty", () => {
  assert.equal(valueAt(1_500_000_000n, 9, "2500.75"), "3751.125");
  // 0.1 + 0.2 style trap: a float would give 0.30000000000000004.
  assert.equal(valueAt(100_000_000n, 9, "3"), "0.3");
  assert.equal(valueAt(-2n, 8, "40.5"), "-0.00000081");
  assert.equal(valueAt(7n, 9, null), null);
});

test("CSV cells: formulas defused, numbers kept, RFC 4180 quoting", () => {
  assert.equal(csvCell("-12.5"), "-12.5");
  assert.equal(csvCell('=HYPERLINK("http://x")'), '"\'=HYPERLINK(""http://x"")"');
  assert.equal(csvCell("+1+2"), "'+1+2");
  assert.equal(csvCell("-1+2"), "'-1+2");
  assert.equal(csvCell("@SUM(A1)"), "'@SUM(A1)");
  assert.equal(csvCell("\tx"), "'\tx");
  assert.equal(csvCell("\rx"), '"\'\rx"');
  assert.equal(csvCell("a,b"), '"a,b"');
  assert.equal(csvCell(null), "");
  assert.equal(csvLine(["0xab", null, "1"]), "0xab,,1\r\n");
});
