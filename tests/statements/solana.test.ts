import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { DECIMALS, formatUnits, parseUnits } from "@stake/db/units";
import request from "supertest";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { sendSigned, testWallet } from "../solana/setup.ts";
import { allPages, asCsv, csvRows, type Row, sum } from "./api.ts";

// Solana statements of October 2026 on the simulated node (LiteSVM): two epochs a UTC day from
// 2026-09-30, a wallet with two stake accounts (one deactivated and withdrawn from mid-month), against the
// area's `GET /api/v1/rewards` per stake account, its history's withdrawals and the node's own books.
const GENESIS = Date.parse("2026-09-30T00:00:00Z") / 1000;
const EPOCH_S = 43_200;
const MONTH = { month: "2026-10", chain: "solana" };
const START = Date.parse("2026-10-01T00:00:00Z") / 1000;
const END = Date.parse("2026-11-01T00:00:00Z") / 1000;
const walletA = testWallet(0x51);
const walletB = testWallet(0x52);
let dev: SolanaDevnet;
let h: ControlPlaneHarness;
let keyA: string;
let keyB: string;
const accountsA: string[] = [];
let accountB: string;
let withdrawnLamports: bigint;
/** The account deactivated and withdrawn from on 2026-10-15 (the second staked, to validator 1). */
let closing: string;

const send = (b64: string) => sendSigned(dev.url, b64);

async function post(key: string, path: string, body: object) {
  const res = await request(h.app).post(`/api/v1/${path}`).set("x-api-key", key).send(body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

async function stake(key: string, wallet: ReturnType<typeof testWallet>, vote: string) {
  const d = await post(key, "stake", {
    validatorPubKey: vote,
    walletPubKey: wallet.pubkey,
    amount: 3_000_000_000,
  });
  await send(wallet.sign(d.unsignedTransactionBase64));
  return d.stakeAccountPubkey as string;
}

before(async () => {
  dev = await startSolanaDevnet({
    slotsPerEpoch: BigInt(EPOCH_S / 0.4),
    genesisUnix: BigInt(GENESIS),
    fund: [
      { pubkey: walletA.pubkey, lamports: 20_000_000_000n },
      { pubkey: walletB.pubkey, lamports: 20_000_000_000n },
    ],
  });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "solana-stake,statements",
    SOLANA_RPC_URL: dev.url,
    SOLANA_MEV_API_URL: dev.mevUrl,
  });
  const scope = (w: string) => ({ solana: { validator_addresses: [], delegator_addresses: [w] } });
  keyA = (await makeOrganisation(h.db, { scope: scope(walletA.pubkey) })).apiKey;
  keyB = (await makeOrganisation(h.db, { scope: scope(walletB.pubkey) })).apiKey;
  const [v0, v1] = dev.chain.validators;
  assert.ok(v0 && v1);
  accountsA.push(await stake(keyA, walletA, v0.vote), await stake(keyA, walletA, v1.vote));
  accountB = await stake(keyB, walletB, v0.vote);
  // To 2026-10-15 00:00 (epoch 30): deactivate the second account, then withdraw all but its rent.
  dev.advanceEpochs(30);
  closing = accountsA[1] as string;
  const target = { validatorPubKey: v1.vote, walletPubKey: walletA.pubkey, stakeAccountPubKey: closing };
  await send(walletA.sign((await post(keyA, "deactivate", target)).unsignedTransactionBase64));
  dev.advanceEpochs(1);
  const held = (await post(keyA, "balance", { stakeAccountPubKeys: [closing] })).stakeAccounts[0];
  const rent = dev.chain.svm.minimumBalanceForRentExemption(200n);
  withdrawnLamports = BigInt(held.lamports.total) - rent;
  const wd = await post(keyA, "withdraw", { ...target, amount: Number(withdrawnLamports) });
  await send(walletA.sign(wd.unsignedTransactionBase64));
  // Past 2026-11-01 00:00 (epoch 64): every reward credited in October has been.
  dev.advanceEpochs(35);
  accountsA.sort();
  // The operator's SOL price on every October day but the 10th.
  const days = Array.from({ length: 31 }, (_, i) => `2026-10-${String(i + 1).padStart(2, "0")}`);
  await (await areaOf(h, "statements")).repo.setPrices(
    "sol",
    "USD",
    days.filter((d) => d !== "2026-10-10").map((day) => ({ day, price: "150.5" })),
  );
});
after(async () => {
  await h?.close();
  await dev?.close();
});

const lamports = (sol: string) => parseUnits(sol, DECIMALS.sol);
const dayOf = (iso: string) => iso.slice(0, 10);

test("rows equal GET /api/v1/rewards per stake account to the lamport, and the node's own payouts; the CSV equals the JSON", async () => {
  const { body, rows } = await allPages(h.app, keyA, MONTH);
  assert.equal(body.base_unit, "lamports");
  assert.equal(body.closed, true);
  const expected: Row[] = [];
  for (const account of accountsA) {
    const res = await request(h.app)
      .get("/api/v1/rewards")
      .set("x-api-key", keyA)
      .query({ stake_accounts: account, start_time: START - 1, end_time: END - 1, period: "monthly" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byDay = new Map<string, bigint>();
    let paid = 0;
    for (const e of res.body.data.rewards as {
      epoch: number;
      time_end: string;
      rewards_earned: { sol: string };
    }[]) {
      const t = Date.parse(e.time_end) / 1000;
      if (t < START || t >= END) continue;
      const amount = lamports(e.rewards_earned.sol);
      // The node's own books: inflation credited and the MEV API's tip for that epoch.
      const inflation = BigInt(dev.chain.inflation.get(`${account}:${e.epoch}`)?.amount ?? 0);
      const mev = BigInt(
        dev.chain.mev.find((m) => m.claimant === account && m.epoch === e.epoch)?.amount ?? 0,
      );
      assert.equal(amount, inflation + mev, `epoch ${e.epoch} of ${account}`);
      if (amount > 0n) paid++;
      byDay.set(dayOf(e.time_end), (byDay.get(dayOf(e.time_end)) ?? 0n) + amount);
    }
    assert.ok(paid >= 28, `${account} earned in ${paid} epochs`);
    for (const [date, earned] of [...byDay].sort()) {
      const withdrawn = account === closing && date === "2026-10-15" ? withdrawnLamports : 0n;
      expected.push({ date, account, earned: earned.toString(), withdrawn: withdrawn.toString() });
    }
  }
  assert.equal(expected.length, 2 * 31);
  assert.deepEqual(
    rows.map((r) => ({ date: r.date, account: r.account, earned: r.earned, withdrawn: r.withdrawn })),
    expected,
  );
  assert.equal(body.totals.earned, sum(rows, "earned"));
  assert.equal(body.totals.withdrawn, withdrawnLamports.toString());
  // The value at the day's price, exact (earned lamports × 150.5 USD per 10^9), empty on the 10th.
  for (const r of rows) {
    const earned = BigInt(r.earned ?? "");
    assert.equal(r.earned_tokens, formatUnits(earned, 9));
    if (r.date === "2026-10-10") assert.deepEqual([r.price, r.value], [null, null]);
    else assert.deepEqual([r.price, r.value], ["150.5", formatUnits(earned * 1505n, 10)]);
  }
  assert.deepEqual(await csvRows(h.app, keyA, MONTH), asCsv(rows));
});

test("the withdrawal is the one the area's history shows", async () => {
  const res = await request(h.app)
    .get("/api/v1/history/events")
    .set("x-api-key", keyA)
    .query({
      stake_accounts: closing,
      start_time: START,
      end_time: END - 1,
      excluded_event_type: "rewards_earned",
    });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const w = res.body.data.history.filter((e: { event_type: string }) => e.event_type === "withdrawn");
  assert.equal(w.length, 1, JSON.stringify(res.body.data.history));
  assert.equal(lamports(w[0].details.amount_sol), withdrawnLamports);
  assert.equal(dayOf(w[0].timestamp), "2026-10-15");
});

test("another organisation's key sees none of it", async () => {
  const { rows } = await allPages(h.app, keyB, MONTH);
  assert.equal(rows.length, 31);
  assert.ok(rows.every((r) => r.account === accountB));
  const text = (await request(h.app).get("/api/statements.csv").query(MONTH).set("api-key", keyB)).text;
  for (const a of accountsA) assert.ok(!text.includes(a));
});
