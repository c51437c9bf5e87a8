import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import supertest from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

// GET /api/rates against a hand computation from the indexed rows: a chain whose genesis is 2026-10-01
// 00:00 UTC (12 s slots, 32 an epoch: 225 epochs a day) indexed from epoch 0 through 2026-11-10's last
// epoch. Organisation A holds validators 1 and 2, B validator 3; the network sample is all three.
const GENESIS = Date.parse("2026-10-01T00:00:00Z") / 1000;
const EPOCHS_PER_DAY = 225;
const DAYS = 41; // 2026-10-01 .. 2026-11-10
const LAST_EPOCH = DAYS * EPOCHS_PER_DAY - 1;
const pk = (v: number) => `0x${v.toString(16).padStart(2, "0").repeat(48)}`;
const dayOf = (i: number) => new Date((GENESIS + i * 86_400) * 1000).toISOString().slice(0, 10);
const indexOf = (day: string) => (Date.parse(`${day}T00:00:00Z`) / 1000 - GENESIS) / 86_400;

/** Validator v's indexed day i: what the daily rollup holds (Gwei). A validator 2 slashed on day 20 loses. */
function row(v: number, i: number) {
  const cl = v === 2 && i === 20 ? -1_000_000_000n : BigInt(2_000_000 + 1_000 * i + 17 * v);
  const el = BigInt(v * 150_000 + (i % 5) * 40_000);
  const balance = 32_000_000_000n + BigInt(v) * 1_000_000_000n + BigInt(i) * 10_000_000n;
  return { cl, el, balanceSum: balance * BigInt(EPOCHS_PER_DAY) };
}

/**
 * The brief's formula, by hand and in another order than the service's: earned ÷ average stake × 365 ÷
 * days, the average stake being Σ end-of-epoch balances ÷ the window's epochs.
 */
function expected(validators: number[], end: number, days: number) {
  let cl = 0;
  let el = 0;
  let balances = 0;
  for (let i = end - days + 1; i <= end; i++)
    for (const v of validators) {
      const r = row(v, i);
      cl += Number(r.cl);
      el += Number(r.el);
      balances += Number(r.balanceSum);
    }
  const averageStake = balances / (days * EPOCHS_PER_DAY);
  const rate = (earned: number) => ((earned / averageStake) * 365 * 100) / days;
  return { cl: rate(cl), el: rate(el), total: rate(cl + el) };
}

function assertRates(got: Record<string, number | null>, validators: number[], end: number, what: string) {
  for (const days of [7, 30]) {
    const covered = end - days + 1 >= 0 && end < DAYS;
    const want = expected(validators, end, days);
    for (const part of ["cl", "el", "total"] as const) {
      const value = got[`${part}_${days}d`];
      if (!covered) {
        assert.equal(value, null, `${what} ${part}_${days}d ending ${dayOf(end)} is not covered`);
        continue;
      }
      assert.ok(
        typeof value === "number" && Math.abs(value - want[part]) < 1e-5,
        `${what} ${part}_${days}d ending ${dayOf(end)}: ${value} ≠ ${want[part]}`,
      );
    }
  }
}

let h: ControlPlaneHarness;
let a: Awaited<ReturnType<typeof makeOrganisation>>;
let b: Awaited<ReturnType<typeof makeOrganisation>>;

before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "beacon-data" });
  a = await makeOrganisation(h.db);
  b = await makeOrganisation(h.db);
  await h.sql`insert into beacon_indexer_cursor (id, epoch, first_epoch, finalized_epoch, genesis_time, seconds_per_slot, slots_per_epoch)
    values ('beacon', ${LAST_EPOCH}, 0, ${LAST_EPOCH - 2}, ${GENESIS}, 12, 32)`;
  const members = [
    [a.id, 1],
    [a.id, 2],
    [b.id, 3],
  ] as const;
  for (const [org, v] of members) {
    await h.sql`insert into beacon_tracked_validators (organisation_id, pubkey, source) values (${org}, ${pk(v)}, 'registered')`;
    await h.sql`insert into beacon_validators (pubkey, validator_index, beacon_status, balance_gwei)
      values (${pk(v)}, ${v}, 'active_ongoing', 32000000000)`;
  }
  // The rollups as the indexer keeps them: per validator, per organisation and for the network, per day.
  for (let i = 0; i < DAYS; i++) {
    for (const v of [1, 2, 3]) {
      const r = row(v, i);
      await h.sql`insert into beacon_rewards_daily (validator_index, day, cl_reward_gwei, el_reward_gwei,
          mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
        values (${v}, ${dayOf(i)}, ${String(r.cl)}, ${String(r.el)}, 0, ${String(r.el)}, ${String(r.balanceSum)}, ${EPOCHS_PER_DAY})`;
    }
    const network = [1, 2, 3].map((v) => row(v, i));
    const total = (k: "cl" | "el" | "balanceSum") => String(network.reduce((s, r) => s + r[k], 0n));
    await h.sql`insert into beacon_rewards_network_daily (day, cl_reward_gwei, el_reward_gwei, mev_reward_gwei,
        priority_fee_gwei, balance_sum_gwei, epochs)
      values (${dayOf(i)}, ${total("cl")}, ${total("el")}, 0, ${total("el")}, ${total("balanceSum")}, ${3 * EPOCHS_PER_DAY})`;
    for (const [org, vs] of [
      [a.id, [1, 2]],
      [b.id, [3]],
    ] as const) {
      const rs = vs.map((v) => row(v, i));
      const sum = (k: "cl" | "el" | "balanceSum") => String(rs.reduce((s, r) => s + r[k], 0n));
      await h.sql`insert into beacon_rewards_org_daily (organisation_id, day, cl_reward_gwei, el_reward_gwei,
          mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
        values (${org}, ${dayOf(i)}, ${sum("cl")}, ${sum("el")}, 0, ${sum("el")}, ${sum("balanceSum")}, ${vs.length * EPOCHS_PER_DAY})`;
    }
  }
});
after(() => h.close());

const rates = (key: string, query: Record<string, string>) =>
  supertest(h.app).get("/api/rates").query(query).set("api-key", key);

describe("GET /api/rates", () => {
  test("organisation, network and validator rates equal the hand computation; uncovered windows are null", async () => {
    const res = await rates(a.apiKey, { from: "2026-10-03", to: "2026-11-12", validator: "2" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.length, 41);
    for (const item of res.body.data) {
      const end = indexOf(item.date);
      assertRates(item.organisation, [1, 2], end, "organisation");
      assertRates(item.network, [1, 2, 3], end, "network");
      assertRates(item.validator, [2], end, "validator 2");
    }
    // The edges, spelled out: the first 7-day window is 10-01..10-07, the first 30-day one ends 10-30, and
    // the days past the index (11-11, 11-12) have nothing.
    const at = (d: string) => res.body.data.find((x: { date: string }) => x.date === d);
    assert.equal(at("2026-10-06").organisation.total_7d, null);
    assert.equal(typeof at("2026-10-07").organisation.total_7d, "number");
    assert.equal(at("2026-10-29").organisation.total_30d, null);
    assert.equal(typeof at("2026-10-30").organisation.total_30d, "number");
    assert.equal(at("2026-11-11").organisation.cl_7d, null);
    assert.equal(at("2026-11-11").network.el_30d, null);
    // The slashing of day 20 (2026-10-21) pulls validator 2's CL rate below zero.
    assert.ok(at("2026-10-21").validator.cl_7d < 0, JSON.stringify(at("2026-10-21")));
  });

  test("a validator by pubkey answers as by index", async () => {
    const byIndex = await rates(a.apiKey, { from: "2026-11-01", to: "2026-11-10", validator: "1" });
    const byPubkey = await rates(a.apiKey, { from: "2026-11-01", to: "2026-11-10", validator: pk(1) });
    assert.equal(byPubkey.status, 200, JSON.stringify(byPubkey.body));
    assert.deepEqual(byPubkey.body, byIndex.body);
  });

  test("tenancy: another organisation's validator is not found, and never in an organisation's rates", async () => {
    for (const validator of ["3", pk(3)]) {
      const res = await rates(a.apiKey, { from: "2026-11-01", to: "2026-11-10", validator });
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.equal(res.body.code, "VALIDATOR_NOT_FOUND");
    }
    const theirs = await rates(b.apiKey, { from: "2026-10-01", to: "2026-11-10" });
    assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
    for (const item of theirs.body.data) {
      assertRates(item.organisation, [3], indexOf(item.date), "organisation B");
      assert.equal(item.validator, undefined);
    }
    const fresh = await makeOrganisation(h.db);
    const none = await rates(fresh.apiKey, { from: "2026-11-10", to: "2026-11-10" });
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.equal(none.body.data[0].organisation.total_7d, null, "no stake, no rate");
    assertRates(
      none.body.data[0].network,
      [1, 2, 3],
      indexOf("2026-11-10"),
      "network for a new organisation",
    );
  });

  test("an index that starts later covers only the windows after its first epoch", async () => {
    // First epoch: 2026-10-11's first; a 7-day window from 10-11 ends 10-17.
    await h.sql`update beacon_indexer_cursor set first_epoch = ${10 * EPOCHS_PER_DAY} where id = 'beacon'`;
    try {
      const res = await rates(a.apiKey, { from: "2026-10-16", to: "2026-10-17" });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data[0].organisation.total_7d, null, JSON.stringify(res.body.data[0]));
      assertRates(res.body.data[1].organisation, [1, 2], indexOf("2026-10-17"), "organisation");
      assert.equal(res.body.data[1].organisation.total_30d, null);
    } finally {
      await h.sql`update beacon_indexer_cursor set first_epoch = 0 where id = 'beacon'`;
    }
  });

  test("the overview's APYs are null for windows the index does not reach back over", async () => {
    const res = await supertest(h.app).get("/api/rewards/overview").set("api-key", a.apiKey);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // 41 days indexed: 7 and 30 days are covered, 365 are not.
    assert.equal(typeof res.body.apy_7d, "number", JSON.stringify(res.body));
    assert.equal(typeof res.body.apy_30d, "number", JSON.stringify(res.body));
    assert.equal(res.body.apy_365d, null, JSON.stringify(res.body));
  });

  test("the range is bounded (366 days) and ordered, in the area's error body", async () => {
    const long = await rates(a.apiKey, { from: "2025-01-01", to: "2026-01-02" });
    assert.equal(long.status, 400, JSON.stringify(long.body));
    assert.equal(long.body.code, "VALIDATION_ERROR");
    assert.deepEqual(
      long.body.details.map((d: { field: string }) => d.field),
      ["to"],
    );
    const year = await rates(a.apiKey, { from: "2024-01-01", to: "2024-12-31" });
    assert.equal(year.status, 200, "366 days of a leap year are allowed");
    assert.equal(year.body.data.length, 366);
    const backwards = await rates(a.apiKey, { from: "2026-11-02", to: "2026-11-01" });
    assert.equal(backwards.status, 400, JSON.stringify(backwards.body));
    const badValidator = await rates(a.apiKey, { from: "2026-11-01", to: "2026-11-01", validator: "0xabc" });
    assert.equal(badValidator.status, 400, JSON.stringify(badValidator.body));
    const noKey = await supertest(h.app).get("/api/rates").query({ from: "2026-11-01", to: "2026-11-01" });
    assert.equal(noKey.status, 401);
  });
});
