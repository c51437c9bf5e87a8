import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { DEMO, SAMPLE } from "../../devnet/sui/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { chainCumulative, type SuiEnv, startSuiEnv } from "./setup.ts";

const SUI = 1_000_000_000n;

describe("Sui rewards per epoch from the pools' exchange rates", () => {
  let env: SuiEnv;
  const daily = (body: object, query = "") =>
    request(env.h.app).post(`/sui/rewards/daily${query}`).set("x-api-key", env.key).send(body);
  const demoRows = async (start: string, end: string) => {
    const res = await daily(
      { stake_account_address: DEMO.delegator, start_date: start, end_date: end },
      "?limit=100",
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.rewards as {
      epochReward: number;
      principal: string;
      totalRewards: string;
      date: string;
      epoch: number;
    }[];
  };

  before(async () => {
    env = await startSuiEnv();
  });
  after(async () => env?.close());

  it("reproduces the spec's sample exactly (epochs 630-631 of a 1,506,659.48 SUI stake)", async () => {
    const body = {
      stake_account_address: SAMPLE.delegator,
      start_date: "2025-01-01",
      end_date: "2025-01-02",
    };
    const expected = {
      rewards: [
        {
          epochReward: 104045285435,
          principal: "1506659480391677",
          totalRewards: "208226541922",
          date: "2025-01-01",
          epoch: 630,
        },
        {
          epochReward: 104161073304,
          principal: "1506659480391677",
          totalRewards: "312387615226",
          date: "2025-01-02",
          epoch: 631,
        },
      ],
      pagination: { currentPage: 1, totalPages: 1, totalRewards: 2, hasNextPage: false, hasPrevPage: false },
    };
    // The spec's own spelling of the query: a second `?` before limit.
    const res = await daily(body, "?page=1?limit=10");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, expected);
    const v1 = await request(env.h.app).post("/api/rewards").set("x-api-key", env.key).send(body);
    assert.equal(v1.status, 200, JSON.stringify(v1.body));
    assert.deepEqual(v1.body, { success: true, data: expected });
    // The next epoch continues the series the notes predict (docs/chains/polygon-sui.md §2.4).
    const next = await daily({ ...body, start_date: "2025-01-03", end_date: "2025-01-03" });
    assert.equal(next.body.rewards[0].totalRewards, "416519383603");
  });

  it("sums several stakes of one pool with different activation epochs, each with its own floors", async () => {
    const rows = await demoRows("2025-01-10", "2025-02-28");
    const ids = env.scenario.demoStakeIds;
    const stakes = [
      { id: ids[0]!, p: DEMO.stakes[0].amount, a: 611, u: Infinity },
      { id: ids[1]!, p: DEMO.stakes[1].amount, a: 641, u: 670 },
      { id: ids[2]!, p: DEMO.stakes[2].amount, a: 651, u: Infinity },
    ];
    assert.equal(rows[0]!.epoch, 639);
    assert.equal(rows[0]!.date, "2025-01-10");
    for (const row of rows) {
      const e = row.epoch;
      const active = stakes.filter((s) => s.a <= e && e < s.u);
      const c = (s: (typeof stakes)[number], x: number) =>
        chainCumulative(env.scenario, s.id, s.p, Math.min(x, s.u));
      const reward = active.reduce((sum, s) => sum + c(s, e + 1) - c(s, e), 0n);
      const total = stakes.filter((s) => s.a <= e).reduce((sum, s) => sum + c(s, e + 1), 0n);
      assert.equal(row.principal, active.reduce((sum, s) => sum + s.p, 0n).toString(), `principal of ${e}`);
      assert.equal(BigInt(row.epochReward), reward, `epochReward of ${e}`);
      assert.equal(row.totalRewards, total.toString(), `totalRewards of ${e}`);
    }
    const principal = (e: number) => rows.find((r) => r.epoch === e)!.principal;
    assert.equal(principal(640), String(1000n * SUI));
    assert.equal(principal(641), String(3500n * SUI));
    assert.equal(principal(651), String(4200n * SUI));
    // The stake withdrawn in 670 earns through 669 only; the stake in another pool is never counted.
    assert.equal(principal(669), String(4200n * SUI));
    assert.equal(principal(670), String(1700n * SUI));
    // totalRewards is the running sum of epochReward.
    for (let i = 1; i < rows.length; i++) {
      const delta = BigInt(rows[i]!.totalRewards) - BigInt(rows[i - 1]!.totalRewards);
      assert.equal(delta, BigInt(rows[i]!.epochReward), `running sum at ${rows[i]!.epoch}`);
    }
  });

  it("a stake withdrawn mid-range earned exactly what the unstake event paid", async () => {
    const res = await daily({
      stake_account_address: DEMO.unstaker,
      start_date: "2025-01-01",
      end_date: "2025-03-10",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const all = await daily(
      { stake_account_address: DEMO.unstaker, start_date: "2025-01-01", end_date: "2025-03-10" },
      "?limit=100",
    );
    const rows = all.body.rewards as { epochReward: number; totalRewards: string; epoch: number }[];
    assert.deepEqual(
      rows.map((r) => r.epoch),
      Array.from({ length: 662 - 646 }, (_, i) => 646 + i),
    );
    const sum = rows.reduce((s, r) => s + BigInt(r.epochReward), 0n);
    assert.ok(env.scenario.unstakerReward > 0n);
    assert.equal(sum, env.scenario.unstakerReward);
    assert.equal(rows.at(-1)!.totalRewards, env.scenario.unstakerReward.toString());
    assert.equal(res.body.pagination.totalRewards, 16);
  });

  it("an epoch without a new rate (safe mode) earns nothing; the next one earns both epochs", async () => {
    const operator = env.scenario.chain.validator("operator").pool;
    assert.equal(operator.rates.has(DEMO.safeModeEpoch), false);
    const rows = await demoRows("2025-01-29", "2025-02-01");
    const byEpoch = new Map(rows.map((r) => [r.epoch, r]));
    assert.equal(byEpoch.get(659)!.epochReward, 0);
    const usual = byEpoch.get(658)!.epochReward;
    const doubled = byEpoch.get(660)!.epochReward;
    assert.ok(doubled > 1.9 * usual && doubled < 2.1 * usual, `${usual} then ${doubled}`);
    assert.equal(byEpoch.get(659)!.totalRewards, byEpoch.get(658)!.totalRewards);
  });

  it("a range before the first stake answers no rows, not an error", async () => {
    const res = await daily({
      stake_account_address: SAMPLE.delegator,
      start_date: "2024-01-01",
      end_date: "2024-12-30",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      rewards: [],
      pagination: { currentPage: 1, totalPages: 0, totalRewards: 0, hasNextPage: false, hasPrevPage: false },
    });
  });

  it("pages are consistent: their concatenation is the whole range, flags and counts agree", async () => {
    const range = { stake_account_address: DEMO.delegator, start_date: "2025-01-01", end_date: "2025-03-31" };
    const whole = await demoRows(range.start_date, range.end_date);
    // Epochs 630..699 are finished (the chain stands at 700); the first stake is active from 611.
    assert.equal(whole.length, 70);
    const limit = 8;
    const pages = Math.ceil(whole.length / limit);
    const seen: unknown[] = [];
    for (let page = 1; page <= pages + 1; page++) {
      const spelling = page % 2 ? `?page=${page}&limit=${limit}` : `?page=${page}?limit=${limit}`;
      const res = await daily(range, spelling);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body.pagination, {
        currentPage: page,
        totalPages: pages,
        totalRewards: whole.length,
        hasNextPage: page < pages,
        hasPrevPage: page > 1,
      });
      if (page > pages) assert.deepEqual(res.body.rewards, []);
      seen.push(...res.body.rewards);
    }
    assert.deepEqual(seen, whole);
    const defaults = await daily(range);
    assert.equal(defaults.body.rewards.length, 10);
    assert.equal(defaults.body.pagination.totalPages, 7);
  });

  it("new epochs are read once: finished epochs' rates come from Postgres", async () => {
    env.scenario.advance();
    env.dev.operations.length = 0;
    await env.indexer.runOnce();
    // One rate read per operator pool for the single new epoch, nothing older.
    assert.equal(env.dev.operations.filter((o) => o === "suiRewardsRates").length, 2);
    const rows = await demoRows("2025-03-12", "2025-03-12");
    assert.deepEqual(
      rows.map((r) => r.epoch),
      [700],
    );
  });

  it("a delegator outside the organisation's sui scope is refused", async () => {
    const org = await makeOrganisation(env.h.db, {
      scope: { sui: { delegator_addresses: [SAMPLE.delegator], validator_addresses: [] } },
    });
    const ask = (address: string) =>
      request(env.h.app)
        .post("/sui/rewards/daily")
        .set("x-api-key", org.apiKey)
        .send({ stake_account_address: address, start_date: "2025-01-01", end_date: "2025-01-02" });
    assert.equal((await ask(SAMPLE.delegator.toUpperCase().replace("0X", "0x"))).status, 200);
    const refused = await ask(DEMO.delegator);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "ADDRESS_NOT_IN_SCOPE");
  });
});

describe("Sui rewards when the index starts after a stake's activation", () => {
  let late: SuiEnv | undefined;
  after(async () => late?.close());

  it("refuses with a clear 503 instead of valuing the stake 1:1", async () => {
    // The sample stake activated before epoch 630; its pool long before.
    late = await startSuiEnv({ SUI_INDEX_FROM_EPOCH: "630" });
    const res = await request(late.h.app)
      .post("/sui/rewards/daily?page=1&limit=10")
      .set("x-api-key", late.key)
      .send({ stake_account_address: SAMPLE.delegator, start_date: "2025-01-01", end_date: "2025-01-02" });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.match(JSON.stringify(res.body), /SUI_INDEX_FROM_EPOCH/);
  });
});
