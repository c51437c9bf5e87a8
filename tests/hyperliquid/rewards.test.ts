import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { DAY_MS } from "../../devnet/hyperliquid/state.ts";
import { api, type DelegationStack, decodeUnsigned, signUnsigned, startDelegationStack } from "./setup.ts";

// The delegator's rewards and history as Hyperliquid's info API reports them (`delegatorRewards`,
// `delegatorHistory`), checked to the wei against a month of the devnet's daily distributions, which
// this test recomputes from the delegated amount: floor(amount × 2.15 % / 365) a day, compounded.
let s: DelegationStack;
before(async () => {
  s = await startDelegationStack("testnet");
});
after(() => s.close());

const get = (path: string, query: Record<string, string>, key = s.apiKey) =>
  request(s.h.app).get(path).query(query).set("api-key", key);

async function delegate(amount: number) {
  const prepared = await api(s).prepare("delegate", { amount, delegatorAddress: s.inScope.address });
  assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
  const unsigned = decodeUnsigned(prepared.body.result.unsignedTransactionBase64);
  const sent = await api(s).broadcast(await signUnsigned(unsigned, s.inScope.wallet));
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  return sent.body.result.transactionHash as string;
}

const hypeText = (wei: bigint) => {
  const frac = (wei % 10n ** 8n).toString().padStart(8, "0").replace(/0+$/, "");
  return `${wei / 10n ** 8n}${frac ? `.${frac}` : ""}`;
};

test("a month of daily rewards equals the devnet's accounting to the wei, and history lists the delegation", async () => {
  const empty = await get("/api/v1/staking/rewards", { delegatorAddress: s.inScope.address });
  assert.equal(empty.status, 200, JSON.stringify(empty.body));
  assert.deepEqual(empty.body.result.rewards, []);
  assert.equal(empty.body.result.totalRewardsWei, "0");

  const hash = await delegate(42.5);
  const start = Math.floor(s.devnet.now() / DAY_MS);
  s.devnet.advanceTime(30 * DAY_MS);

  let delegated = 4_250_000_000n;
  const expected: { date: string; amountWei: string }[] = [];
  for (let day = start + 1; day <= start + 30; day++) {
    const reward = (delegated * 215n) / 3_650_000n;
    delegated += reward;
    expected.push({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), amountWei: reward.toString() });
  }
  const res = await get("/api/v1/staking/rewards", { delegatorAddress: s.inScope.address });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const got = res.body.result.rewards as {
    date: string;
    amountWei: string;
    amount: string;
    source: string;
  }[];
  assert.deepEqual(
    got.map((r) => ({ date: r.date, amountWei: r.amountWei })),
    expected,
  );
  for (const r of got) {
    assert.equal(r.source, "delegation");
    assert.equal(r.amount, hypeText(BigInt(r.amountWei)));
  }
  const total = delegated - 4_250_000_000n;
  assert.equal(res.body.result.totalRewardsWei, total.toString());
  assert.equal(res.body.result.totalRewards, hypeText(total));

  // The rewards are compounded into the delegation, as Hyperliquid does.
  const balance = await api(s).balance(s.inScope.address);
  assert.equal(balance.body.result.delegatedBalance, Number(hypeText(delegated)));

  const week = await get("/api/v1/staking/rewards", {
    delegatorAddress: s.inScope.address,
    from: expected[3]?.date ?? "",
    to: expected[9]?.date ?? "",
  });
  assert.deepEqual(
    week.body.result.rewards.map((r: { date: string }) => r.date),
    expected.slice(3, 10).map((r) => r.date),
  );

  const history = await get("/api/v1/staking/history", { delegatorAddress: s.inScope.address });
  assert.equal(history.status, 200, JSON.stringify(history.body));
  assert.deepEqual(history.body.result, [
    {
      time: history.body.result[0].time,
      hash,
      type: "delegate",
      validator: s.devnet.validators[0],
      amount: "42.5",
      amountWei: "4250000000",
    },
  ]);
});

test("rewards and history of a delegator outside the organisation's scope are refused", async () => {
  for (const path of ["/api/v1/staking/rewards", "/api/v1/staking/history"]) {
    const res = await get(path, { delegatorAddress: s.outOfScope.address });
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, "ADDRESS_NOT_IN_SCOPE");
  }
  const bad = await get("/api/v1/staking/rewards", {
    delegatorAddress: s.inScope.address,
    from: "2026-02-01",
    to: "2026-01-01",
  });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
});
