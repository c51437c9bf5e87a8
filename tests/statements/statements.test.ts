import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import request from "supertest";
import { type HyperliquidDevnet, startHyperliquidDevnet } from "../../devnet/hyperliquid/server.ts";
import { DAY_MS } from "../../devnet/hyperliquid/state.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { decodeUnsigned, signUnsigned } from "../hyperliquid/setup.ts";
import { asCsv, csvRows, allPages as pages, type Row, sum } from "./api.ts";
import {
  balanceAt,
  EPOCH_SECONDS,
  GENESIS,
  indexOf,
  pubkeyOf,
  seedEthereum,
  seedWithdrawal,
} from "./seed.ts";

// Statements against the reward endpoints over a month of data, for each chain: Ethereum from seeded
// indexed rows (October 2026, finalized), Hyperliquid from the devnet's own daily distributions (a month
// reached by moving its clock). Every row is compared to the base unit; the CSV to the JSON.
let h: ControlPlaneHarness;
let dn: HyperliquidDevnet;
let keyA: string;
let keyB: string;
let orgA: string;
let orgB: string;
const VALIDATORS_A = 5;
let hlMonth: string;
const allPages = (key: string, query: Record<string, string>) => pages(h.app, key, query);
const csv = (key: string, query: Record<string, string>) => csvRows(h.app, key, query);

before(async () => {
  dn = await startHyperliquidDevnet({ chain: "Testnet" });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "statements,beacon-data,hyperliquid-delegation",
    NETWORK: "testnet",
    HYPERLIQUID_API_URL: dn.url,
    HYPERLIQUID_VALIDATOR_ADDRESS: dn.validators[0],
  });
  const [w0, w1] = dn.wallets;
  assert.ok(w0 && w1);
  const a = await makeOrganisation(h.db, {
    scope: { hyperliquid: { validator_addresses: [], delegator_addresses: [w0.address] } },
  });
  const b = await makeOrganisation(h.db, {
    scope: { hyperliquid: { validator_addresses: [], delegator_addresses: [w1.address] } },
  });
  [keyA, keyB, orgA, orgB] = [a.apiKey, b.apiKey, a.id, b.id];
  const owners = [...Array.from({ length: VALIDATORS_A }, () => orgA), orgB];
  await seedEthereum(h, VALIDATORS_A + 1, owners);
  await seedWithdrawal(h, pubkeyOf(0), "2026-10-05T08:00:00Z", 1_234_567n);
  await seedWithdrawal(h, pubkeyOf(0), "2026-10-05T20:00:00Z", 1_000n);
  await seedWithdrawal(h, pubkeyOf(1), "2026-10-31T23:59:59Z", 77n);
  await seedWithdrawal(h, pubkeyOf(1), "2026-11-01T00:00:00Z", 5n);
  const days = Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, "0")}`);
  await (await areaOf(h, "statements")).repo.setPrices(
    "eth",
    "USD",
    days.filter((d) => d !== "2026-10-10").map((day, i) => ({ day, price: `${2500 + i}.125` })),
  );

  // Hyperliquid: delegate 50, move 5 days, undelegate and withdraw 10 (it reaches spot 7 days later),
  // then run the clock to the end of the next month: a whole month of distributions.
  const hl = async (op: string, amount: number) => {
    const prepared = await request(h.app)
      .post(`/api/v1/staking/${op}`)
      .set("api-key", keyA)
      .send({ amount, delegatorAddress: w0.address });
    assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
    const signed = await signUnsigned(
      decodeUnsigned(prepared.body.result.unsignedTransactionBase64),
      w0.wallet,
    );
    const sent = await request(h.app)
      .post("/api/v1/staking/broadcast")
      .set("api-key", keyA)
      .send({ signedTransaction: signed });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
  };
  await hl("delegate", 50);
  const start = new Date(dn.now());
  const next = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
  hlMonth = next.toISOString().slice(0, 7);
  dn.advanceTime(next.getTime() - dn.now() + 3 * DAY_MS);
  await hl("undelegate", 10);
  await hl("withdraw", 10);
  dn.advanceTime(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 2) - dn.now());
});
after(async () => {
  await h?.close();
  await dn?.close();
});

describe("Ethereum statement of October 2026", () => {
  const q = { month: "2026-10", chain: "ethereum" };

  test("rows equal GET /api/rewards/date to the Gwei, with withdrawals, end-of-day balances and values", async () => {
    const { body, rows } = await allPages(keyA, q);
    assert.equal(rows.length, VALIDATORS_A * 31);
    assert.equal(body.closed, true);
    assert.equal(body.base_unit, "gwei");
    const rewards = await request(h.app)
      .get("/api/rewards/date")
      .query({ start_date: "2026-10-01", end_date: "2026-10-31", interval: "1d", per_page: "100" })
      .set("api-key", keyA);
    assert.equal(rewards.status, 200, JSON.stringify(rewards.body));
    const expected = new Map<string, Row>();
    for (const d of rewards.body.interval_summary)
      for (const v of d.validators) expected.set(`${d.date} ${v.pubkey}`, v);
    assert.equal(expected.size, rows.length);
    const withdrawals: Record<string, string> = {
      [`2026-10-05 ${pubkeyOf(0)}`]: "1235567",
      [`2026-10-31 ${pubkeyOf(1)}`]: "77",
    };
    for (const r of rows) {
      const e = expected.get(`${r.date} ${r.account}`);
      assert.ok(e, `${r.date} ${r.account} has no reward row`);
      assert.equal(r.cl_reward, e.cl_reward);
      assert.equal(r.mev_reward, e.mev_reward);
      assert.equal(r.priority_fees, e.priority_fees);
      assert.equal(BigInt(r.earned ?? ""), BigInt(e.cl_reward ?? "") + BigInt(e.el_reward ?? ""));
      assert.equal(r.withdrawn, withdrawals[`${r.date} ${r.account}`] ?? "0");
      // The last epoch starting that day: four a day from genesis at midnight.
      const day = (Date.parse(`${r.date}T00:00:00Z`) / 1000 - GENESIS) / EPOCH_SECONDS;
      const v = indexOf(r.account ?? "");
      assert.equal(r.end_of_day_balance, balanceAt(v, day + 3).toString());
      if (r.date === "2026-10-10") assert.deepEqual([r.price, r.value], [null, null]);
    }
    const oct1 = rows.find((r) => r.date === "2026-10-01");
    assert.equal(oct1?.price, "2500.125");
    assert.equal(oct1?.earned_tokens, (Number(oct1?.earned) / 1e9).toString()); // small: exact in a double
    for (const f of ["earned", "withdrawn", "cl_reward", "priority_fees", "mev_reward"])
      assert.equal(body.totals[f], sum(rows, f), f);
  });

  test("the CSV holds exactly the JSON rows", async () => {
    const { rows } = await allPages(keyA, q);
    assert.deepEqual(await csv(keyA, q), asCsv(rows));
  });

  test("another organisation's key sees none of it", async () => {
    const { rows } = await allPages(keyB, q);
    assert.equal(rows.length, 31);
    const one = await request(h.app)
      .get("/api/statements")
      .query({ ...q, page: "5", per_page: "1" })
      .set("api-key", keyB);
    assert.deepEqual(one.body.results, [rows[4]], JSON.stringify(one.body));
    assert.ok(rows.every((r) => r.account === pubkeyOf(VALIDATORS_A)));
    const text = (await request(h.app).get("/api/statements.csv").query(q).set("api-key", keyB)).text;
    for (let i = 0; i < VALIDATORS_A; i++) assert.ok(!text.includes(pubkeyOf(i)));
    const hl = await allPages(keyB, { month: hlMonth, chain: "hyperliquid" });
    assert.deepEqual(hl.rows, []);
    assert.equal(hl.body.totals.earned, "0");
  });
});

describe("Hyperliquid statement of a month of devnet distributions", () => {
  test("rows equal GET /api/v1/staking/rewards and /history to the wei; the CSV equals the JSON", async () => {
    const q = { month: hlMonth, chain: "hyperliquid" };
    const { body, rows } = await allPages(keyA, q);
    const w0 = dn.wallets[0]?.address ?? "";
    const rewards = await request(h.app)
      .get("/api/v1/staking/rewards")
      .query({ delegatorAddress: w0, from: `${hlMonth}-01`, to: `${hlMonth}-31` })
      .set("api-key", keyA);
    assert.equal(rewards.status, 200, JSON.stringify(rewards.body));
    const history = await request(h.app)
      .get("/api/v1/staking/history")
      .query({ delegatorAddress: w0 })
      .set("api-key", keyA);
    const finalized = history.body.result.find((e: Row) => e.type === "withdrawal_finalized");
    assert.ok(finalized, JSON.stringify(history.body));
    const withdrawnDay = new Date(Number(finalized.time)).toISOString().slice(0, 10);
    assert.ok(rewards.body.result.rewards.length >= 28);
    assert.deepEqual(
      rows.map((r) => ({ date: r.date, account: r.account, earned: r.earned, withdrawn: r.withdrawn })),
      rewards.body.result.rewards.map((e: Row) => ({
        date: e.date,
        account: w0,
        earned: e.amountWei,
        withdrawn: e.date === withdrawnDay ? "1000000000" : "0",
      })),
    );
    assert.equal(body.totals.earned, rewards.body.result.totalRewardsWei);
    assert.equal(body.totals.withdrawn, "1000000000");
    assert.equal(body.base_unit, "wei");
    assert.ok(rows.every((r) => r.cl_reward === null && r.price === null && r.value === null));
    assert.deepEqual(await csv(keyA, q), asCsv(rows));
  });
});

test("statement.ready: once per organisation and month, through the webhook outbox, when the month has closed", async () => {
  for (const org of [orgA, orgB])
    await h.sql`insert into webhook_endpoints (id, owner_kind, owner_id, url, secret_encrypted)
      values (${`whe_${org}`}, 'organisation', ${org}, 'https://example.com/hook', 'x')`;
  const notices = (await areaOf(h, "statements")).notices;
  assert.deepEqual(await notices.runOnce("2026-10"), { month: "2026-10", told: 2 });
  assert.deepEqual(await notices.runOnce("2026-10"), { month: "2026-10", told: 0 });
  const events = await h.sql<{ data: Row }[]>`
    select data from webhook_events where type = 'statement.ready' order by (data->>'rows')::int desc`;
  const { rows } = await allPages(keyA, { month: "2026-10", chain: "ethereum" });
  assert.deepEqual(
    events.map((e) => e.data),
    [
      {
        chain: "ethereum",
        month: "2026-10",
        rows: 155,
        baseUnit: "gwei",
        earned: sum(rows, "earned"),
        withdrawn: "1235644",
      },
      events[1]?.data,
    ],
  );
  assert.equal(events.length, 2);
  // The Hyperliquid month is still open by the wall clock: nothing told for it.
  assert.deepEqual(await notices.runOnce(hlMonth), { month: hlMonth, told: 0 });
});
