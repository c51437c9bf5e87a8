import assert from "node:assert/strict";
import { test } from "node:test";
import { spendWindows } from "./scripts.ts";

const DAY = 86_400_000;

test("spend windows: the UTC day and month of a time, exact at their edges, whatever was asked before", () => {
  // Asked out of order, so a day remembered from one call is never reused for another day's time.
  const times = [
    "2026-12-31T23:59:59.999Z",
    "2027-01-01T00:00:00.000Z",
    "2026-02-28T12:00:00.000Z",
    "2028-02-29T00:00:00.001Z",
    "2026-12-31T00:00:00.000Z",
    "2026-12-31T23:59:59.999Z",
  ];
  for (const iso of times) {
    const now = Date.parse(iso);
    const at = new Date(now);
    const dayStart = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
    const dayEnd = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1);
    const monthStart = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1);
    const monthEnd = Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1);
    assert.deepEqual(
      spendWindows(now),
      {
        day: iso.slice(0, 10),
        month: iso.slice(0, 7),
        dayStart,
        dayEnd,
        monthStart,
        monthEnd,
        dayLeftMs: dayEnd - now,
        monthLeftMs: monthEnd - now,
      },
      iso,
    );
  }
  assert.equal(spendWindows(Date.parse("2026-12-31T23:59:59.999Z")).dayLeftMs, 1);
  assert.equal(spendWindows(Date.parse("2027-01-01T00:00:00.000Z")).monthLeftMs, 31 * DAY);
});
