import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { DEMO, SAMPLE } from "../../devnet/sui/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type SuiEnv, startSuiEnv } from "../sui/setup.ts";
import { allPages, asCsv, csvRows, type Row, sum } from "./api.ts";

// Sui statements of February 2025 on the simulated chain (epoch 630 starts 2025-01-01, one epoch a day,
// the chain at 700): the demo delegator and the unstaker (each withdraws once in the month), against
// `POST /api/rewards` of the Sui area and the chain's own withdrawal payouts.
let env: SuiEnv;
let keyA: string;
let keyB: string;
const MONTH = { month: "2025-02", chain: "sui" };
const SCOPED = [DEMO.delegator, DEMO.unstaker];

before(async () => {
  env = await startSuiEnv({ CONTROL_PLANE_AREAS: "sui-rewards,statements" });
  keyA = (
    await makeOrganisation(env.h.db, {
      scope: { sui: { validator_addresses: [], delegator_addresses: SCOPED } },
    })
  ).apiKey;
  keyB = (
    await makeOrganisation(env.h.db, {
      scope: { sui: { validator_addresses: [], delegator_addresses: [SAMPLE.delegator] } },
    })
  ).apiKey;
  // The worker follows every delegator of an organisation's scope.
  await env.indexer.runOnce();
});
after(() => env?.close());

/** The Sui area's own daily rows of February for one delegator (every page). */
async function rewardsOf(delegator: string) {
  const out: { date: string; epochReward: number; epoch: number }[] = [];
  for (let page = 1; ; page++) {
    const res = await request(env.h.app)
      .post(`/api/rewards?page=${page}&limit=100`)
      .set("x-api-key", keyA)
      .send({ stake_account_address: delegator, start_date: "2025-02-01", end_date: "2025-02-28" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.data.rewards);
    if (!res.body.data.pagination.hasNextPage) return out;
  }
}

test("rows equal POST /api/rewards to the MIST, withdrawals are the chain's payouts; the CSV equals the JSON", async () => {
  const { body, rows } = await allPages(env.h.app, keyA, MONTH);
  assert.equal(body.base_unit, "mist");
  assert.equal(body.closed, true, "epochs through 698 are finished");
  const withdrawals: Record<string, bigint> = {
    [`2025-02-10 ${DEMO.delegator}`]: DEMO.stakes[1].amount + env.scenario.unstakeReward,
    [`2025-02-02 ${DEMO.unstaker}`]: 1_234_000_000_000n + env.scenario.unstakerReward,
  };
  const expected: Row[] = [];
  for (const delegator of [...SCOPED].sort()) {
    for (const r of await rewardsOf(delegator)) {
      assert.ok(Number.isSafeInteger(r.epochReward), "the endpoint's number is exact");
      const earned = BigInt(r.epochReward);
      const withdrawn = withdrawals[`${r.date} ${delegator}`] ?? 0n;
      expected.push({
        date: r.date,
        account: delegator,
        earned: earned.toString(),
        earned_tokens: (Number(earned) / 1e9).toString(),
        withdrawn: withdrawn.toString(),
      });
    }
  }
  // The unstaker's stake earns through 661, and its withdrawal on 662 makes that day's row.
  const unstakerDay = `2025-02-02 ${DEMO.unstaker}`;
  if (!expected.some((e) => `${e.date} ${e.account}` === unstakerDay))
    expected.push({
      date: "2025-02-02",
      account: DEMO.unstaker,
      earned: "0",
      earned_tokens: "0",
      withdrawn: (withdrawals[unstakerDay] as bigint).toString(),
    });
  expected.sort((a, b) => `${a.account} ${a.date}`.localeCompare(`${b.account} ${b.date}`));
  assert.ok(expected.length >= 28, `${expected.length} rows`);
  assert.deepEqual(
    rows.map((r) => ({
      date: r.date,
      account: r.account,
      earned: r.earned,
      earned_tokens: r.earned_tokens,
      withdrawn: r.withdrawn,
    })),
    expected,
  );
  for (const r of rows)
    assert.deepEqual([r.cl_reward, r.end_of_day_balance, r.price, r.value], [null, null, null, null]);
  assert.equal(body.totals.earned, sum(rows, "earned"));
  assert.equal(
    body.totals.withdrawn,
    Object.values(withdrawals)
      .reduce((a, b) => a + b, 0n)
      .toString(),
  );
  assert.deepEqual(await csvRows(env.h.app, keyA, MONTH), asCsv(rows));
});

test("another organisation's key sees none of it", async () => {
  const { rows, body } = await allPages(env.h.app, keyB, MONTH);
  assert.ok(rows.every((r) => r.account === SAMPLE.delegator));
  assert.equal(body.totals.withdrawn, "0");
  const text = (await request(env.h.app).get("/api/statements.csv").query(MONTH).set("api-key", keyB)).text;
  for (const a of SCOPED) assert.ok(!text.includes(a));
  // An organisation without a Sui scope has no Sui statement.
  const none = await makeOrganisation(env.h.db);
  assert.deepEqual((await allPages(env.h.app, none.apiKey, MONTH)).rows, []);
});
