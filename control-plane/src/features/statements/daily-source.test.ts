import assert from "node:assert/strict";
import { test } from "node:test";
import { createDailySource, type DayAmount, scopeAccounts } from "./daily-source.ts";
import type { Organisation } from "./source.ts";

const m = { month: "2026-10", start: "2026-10-01", end: "2026-11-01" };
const org = (addresses: string[]): Organisation => ({
  id: "org_x",
  scope: { sui: { validator_addresses: [], delegator_addresses: addresses } },
});

/** Two accounts: amounts on the same day add up, a day outside the month is left out, withdrawals alone make a row. */
function source() {
  const reads: string[] = [];
  const data: Record<string, { earned: DayAmount[]; withdrawn: DayAmount[] }> = {
    "0xa": {
      earned: [
        { date: "2026-10-02", amount: 5n },
        { date: "2026-10-01", amount: 3n },
        { date: "2026-10-01", amount: 4n },
        { date: "2026-09-30", amount: 100n },
      ],
      withdrawn: [{ date: "2026-10-03", amount: 9n }],
    },
    "0xb": {
      earned: [
        { date: "2026-10-31", amount: -2n },
        { date: "2026-11-01", amount: 1n },
      ],
      withdrawn: [],
    },
  };
  const s = createDailySource({
    chain: "sui",
    token: "sui",
    baseUnit: "mist",
    decimals: 9,
    accounts: (o) => scopeAccounts(o, "sui", (a) => a.toLowerCase()),
    async month(account) {
      reads.push(account);
      return data[account] ?? { earned: [], withdrawn: [] };
    },
    closed: async () => true,
  });
  return { s, reads };
}

test("one row per account and day of the month, in (account, date) order, paged across accounts", async () => {
  const { s } = source();
  const o = org(["0xB", "0xa", "0xA"]);
  const all = await s.rows(o, m, 0, 100);
  assert.deepEqual(
    all.map((r) => [r.account, r.date, r.earned, r.withdrawn]),
    [
      ["0xa", "2026-10-01", 7n, 0n],
      ["0xa", "2026-10-02", 5n, 0n],
      ["0xa", "2026-10-03", 0n, 9n],
      ["0xb", "2026-10-31", -2n, 0n],
    ],
  );
  assert.deepEqual(await s.rows(o, m, 2, 2), all.slice(2, 4));
  assert.deepEqual(await s.rows(o, m, 4, 2), []);
  const t = await s.totals(o, m);
  assert.deepEqual([t.rows, t.earned, t.withdrawn, t.cl], [4, 10n, 9n, null]);
});

test("a page and its totals read each account once; the CSV stream one account at a time; an empty scope reads nothing", async () => {
  const { s, reads } = source();
  const o = org(["0xa", "0xb"]);
  await Promise.all([s.rows(o, m, 0, 10), s.totals(o, m)]);
  assert.deepEqual(reads, ["0xa", "0xb"]);
  const batches = [];
  for await (const b of s.stream(org(["0xa", "0xb"]), m, 1000)) batches.push(b.length);
  assert.deepEqual(batches, [3, 1]);
  reads.length = 0;
  assert.deepEqual(await s.rows(org([]), m, 0, 10), []);
  assert.deepEqual(reads, []);
});
