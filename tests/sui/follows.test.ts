import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createRedisKeys } from "@stake/db/redis/keys";
import request from "supertest";
import { devnetId } from "../../devnet/sui/chain.ts";
import { DEMO, SAMPLE } from "../../devnet/sui/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type SuiEnv, startSuiEnv } from "./setup.ts";

describe("one Sui read follows at most SUI_MAX_PAGES_PER_SYNC pages", () => {
  // 51 stakes: two pages of 50 owned objects.
  const many = devnetId("delegator:many-stakes");
  let env: SuiEnv;
  before(async () => {
    env = await startSuiEnv({ SUI_MAX_PAGES_PER_SYNC: "1" }, (s) => {
      for (let i = 0; i < 51; i++) s.chain.requestAddStake(many, s.validators.operator, 1_000_000_000n);
    });
  });
  after(() => env.close());

  it("a delegator whose owned stakes need a second page is refused after one page, not read to the end", async () => {
    const res = await request(env.h.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", env.key)
      .send({ stake_account_address: many, start_date: "2025-01-01", end_date: "2025-01-02" });
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(env.dev.operations.filter((o) => o === "suiRewardsOwnedStakes").length, 1);
  });

  // The same cap bounds a pass of the pools' rate history, so an epoch far ahead (a lie,
  // or years of history) is read over several passes instead of in one unbounded one.
  const pools = () =>
    env.h.sql<{ pool_id: string; activation_epoch: number; indexed_through_epoch: number }[]>`
      select pool_id, activation_epoch, indexed_through_epoch from sui_pools order by pool_id`;
  it("a pass reads at most SUI_MAX_PAGES_PER_SYNC batches of 50 epochs of each pool; the next goes on", async () => {
    const chainEpoch = env.scenario.chain.epoch;
    // startSuiEnv ran one pass.
    for (const p of await pools())
      assert.equal(p.indexed_through_epoch, Math.min(p.activation_epoch + 49, chainEpoch), p.pool_id);
    await env.indexer.runOnce();
    for (const p of await pools())
      assert.equal(p.indexed_through_epoch, Math.min(p.activation_epoch + 99, chainEpoch), p.pool_id);
  });

  it("a node whose epoch is behind what is already indexed is refused: nothing written", async () => {
    const [first] = await pools();
    await env.h.sql`update sui_pools set indexed_through_epoch = 100000 where pool_id = ${first!.pool_id}`;
    const before = await pools();
    const rates = await env.h.sql`select count(*)::int as n from sui_pool_rates`;
    await assert.rejects(env.indexer.runOnce(), (err: Error & { status?: number }) => {
      assert.equal(err.status, 502);
      assert.match(err.message, /^Sui node answered epoch \d+, behind epoch 100000 already indexed$/);
      return true;
    });
    assert.deepEqual(await pools(), before);
    assert.deepEqual(await env.h.sql`select count(*)::int as n from sui_pool_rates`, rates);
  });
});

// Any API key made the worker follow arbitrary addresses forever, without a cap.
describe("Sui delegators outside every scope are followed within a cap and an expiry", () => {
  let env: SuiEnv;
  before(async () => {
    env = await startSuiEnv({ SUI_FOLLOWS_PER_ORGANISATION: "1" });
  });
  after(() => env.close());
  const ask = (key: string, address: string) =>
    request(env.h.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", key)
      .send({ stake_account_address: address, start_date: "2025-01-01", end_date: "2025-01-02" });

  it("an organisation past its cap of followed delegators gets 403 SUI_FOLLOW_LIMIT_REACHED", async () => {
    const org = await makeOrganisation(env.h.db);
    const first = await ask(org.apiKey, DEMO.delegator);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Asking again for a followed address is not a new follow.
    assert.equal((await ask(org.apiKey, DEMO.delegator)).status, 200);
    const refused = await ask(org.apiKey, SAMPLE.delegator);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.equal(refused.body.code, "SUI_FOLLOW_LIMIT_REACHED");
    // Another organisation has its own cap.
    const other = await makeOrganisation(env.h.db);
    assert.equal((await ask(other.apiKey, SAMPLE.delegator)).status, 200);
  });

  it("a delegator not queried within the expiry is no longer synced by the worker", async () => {
    assert.equal((await env.indexer.runOnce()).delegators, 2);
    // Eight days pass for both addresses (the default expiry is seven).
    const { suiFollowed } = createRedisKeys(env.h.config.redisPrefix).tenancy;
    const old = Date.now() - 8 * 86_400_000;
    await env.h.redis.zadd(suiFollowed, old, DEMO.delegator, old, SAMPLE.delegator);
    assert.equal((await env.indexer.runOnce()).delegators, 0);
  });
});
