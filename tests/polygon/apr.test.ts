import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import request from "supertest";
import type { Address } from "viem";
import { type PolygonEnv, reader, startPolygonEnv } from "./setup.ts";

const DAY = 86_400n;
const YEAR = 31_536_000n;

async function apr(env: PolygonEnv) {
  const res = await request(env.h.app).get("/api/apr").set("x-api-key", env.key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.code, 200);
  return res.body.data as {
    apr_1d: number | null;
    apr_7d: number | null;
    apr_30d: number | null;
    as_of: string;
    block: number;
  };
}

/** The test's own search: the last block at or before `ts`, over raw `eth_getBlockByNumber`s. */
async function blockAt(env: PolygonEnv, ts: bigint, head: bigint) {
  const time = async (n: bigint) => (await env.devnet.public.getBlock({ blockNumber: n })).timestamp;
  let [lo, hi] = [0n, head];
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if ((await time(mid)) <= ts) lo = mid;
    else hi = mid - 1n;
  }
  return { block: lo, timestamp: await time(lo) };
}

/**
 * Expected APR from raw `eth_call`s at the window's two blocks, worked as a delegator would see it: buy
 * 1,000 POL of shares at the start's exchange rate, earn shares × ΔrewardPerShare / 1e25, annualise.
 */
async function expectedApr(env: PolygonEnv, vs: Address, from: bigint, to: bigint) {
  const read = reader(env);
  const [rps0, xr0, rps1] = (await Promise.all([
    read(vs, "getRewardPerShare", [], from),
    read(vs, "exchangeRate", [], from),
    read(vs, "getRewardPerShare", [], to),
  ])) as bigint[];
  const [t0, t1] = await Promise.all(
    [from, to].map(async (n) => (await env.devnet.public.getBlock({ blockNumber: n })).timestamp),
  );
  const stake = 1000n * 10n ** 18n;
  const shares = (stake * 10n ** 29n) / xr0!;
  const earned = (shares * (rps1! - rps0!)) / 10n ** 25n;
  // Scaled by 1e15 before the division so the float only rounds once.
  return Number((earned * YEAR * 100n * 10n ** 15n) / (stake * (t1! - t0!))) / 1e15;
}

describe("Polygon APR from rewardPerShare snapshots on a real EVM", () => {
  const envs: PolygonEnv[] = [];
  after(async () => {
    for (const e of envs) await e.close();
  });

  it("1/7/30-day APR equals the formula on raw eth_calls at the windows' blocks (commission change and a missed checkpoint inside)", async () => {
    const env = await startPolygonEnv({ days: 31 });
    envs.push(env);
    const pass = await env.snapshotter.runOnce();
    assert.equal(
      pass.backfilled,
      3,
      "an archive node: every window start backfilled with eth_call at a past block",
    );
    const got = await apr(env);
    const head = await env.devnet.public.getBlockNumber();
    assert.equal(BigInt(got.block), head);
    const t1 = (await env.devnet.public.getBlock({ blockNumber: head })).timestamp;
    assert.equal(got.as_of, new Date(Number(t1) * 1000).toISOString());
    for (const [days, value] of [
      [1n, got.apr_1d],
      [7n, got.apr_7d],
      [30n, got.apr_30d],
    ] as const) {
      assert.equal(typeof value, "number", `apr_${days}d`);
      const start = await blockAt(env, t1 - days * DAY, head);
      const want = await expectedApr(env, env.devnet.validatorShare, start.block, head);
      assert.ok(Math.abs(value! - want) < 1e-9 * want, `apr_${days}d ${value} vs ${want}`);
      // The window holds a checkpoint the operator missed (the one before the last).
      assert.ok(
        env.history.checkpoints.some((c) => !c.operatorSigned && c.block > start.block && c.block <= head),
        `apr_${days}d window contains a missed checkpoint`,
      );
    }
    // ~5 % gross, 10 % proposer bonus elsewhere, 10 % commission, one of four checkpoints missed on the
    // last day: the 1-day APR is clearly below the 30-day one, which is near 0.05 × 0.9 × 0.9–0.95.
    assert.ok(got.apr_1d! < got.apr_30d!, JSON.stringify(got));
    assert.ok(got.apr_30d! > 3.9 && got.apr_30d! < 4.3, JSON.stringify(got));
    // The exchange rate stays flat while rewards accrue: an APR from it would read 0 (notes §0, method B).
    const read = reader(env);
    const start30 = await blockAt(env, t1 - 30n * DAY, head);
    assert.equal(
      await read(env.devnet.validatorShare, "exchangeRate", [], start30.block),
      await read(env.devnet.validatorShare, "exchangeRate", [], head),
    );
  });

  it("a window longer than the chain's history is null, never a guess", async () => {
    const env = await startPolygonEnv({ days: 3 });
    envs.push(env);
    await env.snapshotter.runOnce();
    const got = await apr(env);
    assert.equal(typeof got.apr_1d, "number");
    assert.equal(got.apr_7d, null);
    assert.equal(got.apr_30d, null);
  });
});
