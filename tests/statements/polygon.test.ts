import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import type { Address } from "viem";
import { type PolygonDevnet, ROLES, startPolygonDevnet } from "../../devnet/polygon/chain.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { allPages, asCsv, csvRows, type Row, sum } from "./api.ts";

// Polygon statements of October 2026 on the simulated L1 (anvil, the public contracts' reward arithmetic):
// a checkpoint every 6 h from 2026-09-30, delegators joining, claiming and restaking along the way. The
// reference is the area's own `POST /api/pending-rewards` read at the end of every day and just before
// every transaction that empties the pending rewards, and the delegators' POL balances.
const GENESIS = Date.parse("2026-09-30T00:00:00Z") / 1000;
const DAY = 86_400;
const MONTH = { month: "2026-10", chain: "polygon" };
const [d0, d1, d2] = ROLES.delegators as readonly Address[] as [Address, Address, Address];
const dayOf = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);

let dev: PolygonDevnet;
let h: ControlPlaneHarness;
let keyA: string;
let keyB: string;
/** An organisation without a Polygon scope reads the reference for every delegator. */
let keyRef: string;
/** Per delegator and day: pending rewards at the day's end, and what left them or was paid during it. */
const book = new Map<string, { end: bigint; left: bigint; paid: bigint }>();
const entry = (who: Address, date: string) => {
  const k = `${who.toLowerCase()} ${date}`;
  const e = book.get(k) ?? { end: 0n, left: 0n, paid: 0n };
  book.set(k, e);
  return e;
};

async function pending(who: Address) {
  const res = await request(h.app)
    .post("/api/pending-rewards")
    .set("x-api-key", keyRef)
    .send({ stake_account_address: who });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return BigInt(res.body.data.pending_rewards_wei);
}

/** A transaction that takes a delegator's pending rewards (claims them, or restakes them). */
async function emptying(who: Address, at: number, tx: () => Promise<unknown>, spent = 0n) {
  const before = await pending(who);
  const balance = await dev.polBalance(who);
  await tx();
  const e = entry(who, dayOf(at));
  e.left += before;
  e.paid += (await dev.polBalance(who)) - balance + spent;
}

before(async () => {
  dev = await startPolygonDevnet({ genesis: GENESIS, checkpointSeconds: 6 * 3600 });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "polygon-rewards,statements",
    POLYGON_L1_RPC_URL: dev.url,
    POLYGON_SNAPSHOT_DEPTH: "0",
  });
  const scope = (d: Address[]) => ({ polygon: { validator_addresses: [], delegator_addresses: d } });
  keyA = (await makeOrganisation(h.db, { scope: scope([d0, d1]) })).apiKey;
  keyB = (await makeOrganisation(h.db, { scope: scope([d2]) })).apiKey;
  keyRef = (await makeOrganisation(h.db)).apiKey;
  await dev.delegate(d0, "300000", GENESIS + 3600);
  await dev.delegate(d1, "200000", GENESIS + 7200);
  const events = new Map<string, (at: number) => Promise<unknown>>([
    ["2026-10-05", (at) => emptying(d0, at, () => dev.claim(d0, at))],
    ["2026-10-10", (at) => emptying(d2, at, () => dev.delegate(d2, "100000", at), 100_000n * 10n ** 18n)],
    ["2026-10-15", (at) => emptying(d1, at, () => dev.restake(d1, at))],
    ["2026-10-20", (at) => emptying(d2, at, () => dev.claim(d2, at))],
    ["2026-10-25", (at) => emptying(d0, at, () => dev.delegate(d0, "50000", at), 50_000n * 10n ** 18n)],
  ]);
  for (let day = GENESIS; day < GENESIS + 32 * DAY; day += DAY) {
    for (const hour of [3, 9, 15, 21]) {
      // The operator misses one checkpoint on the 8th: that day earns less, not nothing.
      const missed = dayOf(day) === "2026-10-08" && hour === 9;
      await dev.checkpoint({ at: day + hour * 3600, ...(missed ? { signers: [16n, 17n, 19n] } : {}) });
      if (hour === 9) await events.get(dayOf(day))?.(day + 12 * 3600);
    }
    for (const who of [d0, d1, d2]) entry(who, dayOf(day)).end = await pending(who);
  }
  // A block past the month's end: its last day is complete and settled.
  await dev.checkpoint({ at: GENESIS + 32 * DAY + 3 * 3600 });
});
after(async () => {
  await h?.close();
  await dev?.close();
});

/** The reference rows of `who`: earned = end − previous end + what left the pending rewards that day. */
function expectedRows(who: Address): Row[] {
  const out: Row[] = [];
  for (let day = GENESIS + DAY; day < GENESIS + 32 * DAY; day += DAY) {
    const e = entry(who, dayOf(day));
    const earned = e.end - entry(who, dayOf(day - DAY)).end + e.left;
    if (earned !== 0n || e.paid !== 0n)
      out.push({
        date: dayOf(day),
        account: who.toLowerCase(),
        earned: earned.toString(),
        withdrawn: e.paid.toString(),
      });
  }
  return out;
}

test("rows equal POST /api/pending-rewards day by day to the wei, withdrawals the POL paid out; the CSV equals the JSON", async () => {
  const { body, rows } = await allPages(h.app, keyA, MONTH);
  assert.equal(body.base_unit, "wei");
  assert.equal(body.decimals, 18);
  assert.equal(body.closed, true);
  const expected = [d0, d1]
    .sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))
    .flatMap(expectedRows);
  assert.equal(expected.length, 2 * 31);
  assert.deepEqual(
    rows.map((r) => ({ date: r.date, account: r.account, earned: r.earned, withdrawn: r.withdrawn })),
    expected,
  );
  // The claim and the claim a new delegation makes are paid out; the restake stays staked.
  const paid = (d: Address, date: string) =>
    rows.find((r) => r.account === d.toLowerCase() && r.date === date);
  assert.notEqual(paid(d0, "2026-10-05")?.withdrawn, "0");
  assert.notEqual(paid(d0, "2026-10-25")?.withdrawn, "0");
  assert.ok(BigInt(paid(d1, "2026-10-15")?.earned ?? "0") > 0n);
  const missed = BigInt(paid(d1, "2026-10-08")?.earned ?? "0");
  assert.ok(
    missed > 0n && missed < BigInt(paid(d1, "2026-10-07")?.earned ?? "0"),
    "a missed checkpoint earns nothing",
  );
  assert.equal(body.totals.earned, sum(rows, "earned"));
  assert.equal(body.totals.withdrawn, sum(rows, "withdrawn"));
  assert.deepEqual(await csvRows(h.app, keyA, MONTH), asCsv(rows));
});

test("another organisation's key sees none of it", async () => {
  const { rows } = await allPages(h.app, keyB, MONTH);
  assert.deepEqual(
    rows.map((r) => ({ date: r.date, account: r.account, earned: r.earned, withdrawn: r.withdrawn })),
    expectedRows(d2),
  );
  assert.ok(rows.length >= 21, "d2 from the 10th");
  const text = (await request(h.app).get("/api/statements.csv").query(MONTH).set("api-key", keyB)).text;
  for (const d of [d0, d1]) assert.ok(!text.toLowerCase().includes(d.toLowerCase()));
});
