import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { sendSigned, testWallet } from "./setup.ts";

const wallet = testWallet(0x21);
const GENESIS = 1_750_000_000;
const EPOCH_SECONDS = 432_000 * 0.4;

describe("stake-account area end to end on the simulated node", () => {
  let dev: SolanaDevnet;
  let h: ControlPlaneHarness;
  let key: string;
  const send = (b64: string) => sendSigned(dev.url, b64);
  const lamports = () => dev.chain.svm.getBalance(wallet.pubkey as never) as bigint;

  before(async () => {
    dev = await startSolanaDevnet({
      genesisUnix: BigInt(GENESIS),
      fund: [{ pubkey: wallet.pubkey, lamports: 20_000_000_000n }],
    });
    h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "solana-stake",
      SOLANA_RPC_URL: dev.url,
      SOLANA_MEV_API_URL: dev.mevUrl,
    });
    key = (await makeOrganisation(h.db)).apiKey;
  });
  after(async () => {
    await h.close();
    await dev.close();
  });

  it("stake → activate → deactivate → withdraw; the wallet's lamports add up", async () => {
    const vote = dev.chain.validators[0]?.vote as string;
    const start = lamports();
    const staked = await request(h.app)
      .post("/api/v1/stake")
      .set("x-api-key", key)
      .send({ validatorPubKey: vote, walletPubkey: wallet.pubkey, amount: 3_000_000_000 });
    assert.equal(staked.status, 200, JSON.stringify(staked.body));
    const s = staked.body.data;
    assert.equal(staked.body.success, true);
    assert.equal(s.stakeAmount, 3_000_000_000);
    assert.equal(s.rentExemptAmount, 2_282_880);
    assert.equal(s.rentAmount, s.rentExemptAmount);
    assert.equal(s.totalAmount, 3_002_282_880);
    assert.equal(s.fee, 5000);
    assert.equal(typeof s.lastValidBlockHeight, "number");
    await send(wallet.sign(s.unsignedTransactionBase64));
    const acct = s.stakeAccountPubkey as string;

    dev.advanceEpochs(3);
    const bal = await request(h.app)
      .post("/v1/balance")
      .set("api-key", key)
      .send({ walletPubKey: wallet.pubkey });
    assert.equal(bal.status, 200, JSON.stringify(bal.body));
    assert.equal(bal.body.data.walletPubkey, wallet.pubkey);
    assert.equal(bal.body.data.stakeAccounts.length, 1);
    const sa = bal.body.data.stakeAccounts[0];
    assert.equal(sa.pubkey, acct);
    assert.equal(sa.status, "active");
    assert.equal(sa.voter, vote);
    assert.equal(sa.authorities.withdraw_authority, wallet.pubkey);
    assert.ok(Number(sa.balance.active_sol) > 3, sa.balance.active_sol);
    assert.ok(Number(sa.balance.rewards_sol) > 0);
    assert.match(sa.created_at, /^\d{4}-\d\d-\d\dT/);

    const rw = await request(h.app)
      .get("/v1/rewards")
      .set("x-api-key", key)
      .query({
        start_time: GENESIS,
        end_time: GENESIS + 10 * 86_400,
        period: "monthly",
        wallet_address: wallet.pubkey,
      });
    assert.equal(rw.status, 200, JSON.stringify(rw.body));
    const perEpoch = rw.body.data.rewards as {
      epoch: number;
      reward_types: { inflation_rewards: { sol: string }; mev_rewards: { sol: string } };
    }[];
    assert.deepEqual(
      perEpoch.map((e) => e.epoch),
      [0, 1, 2],
    );
    for (const e of perEpoch.slice(1)) {
      assert.ok(Number(e.reward_types.inflation_rewards.sol) > 0);
      assert.ok(Number(e.reward_types.mev_rewards.sol) > 0);
    }

    const hq = { start_time: GENESIS, end_time: GENESIS + 30 * 86_400, wallet_address: wallet.pubkey };
    const hist = await request(h.app).get("/api/v1/history/events").set("x-api-key", key).query(hq);
    assert.equal(hist.status, 200, JSON.stringify(hist.body));
    const types = (hist.body.data.history as { event_type: string }[]).map((e) => e.event_type);
    assert.deepEqual(types, ["account_created", "delegation_activated", "rewards_earned", "rewards_earned"]);
    const created = hist.body.data.history[0];
    assert.equal(created.details.initial_stake_sol, "3");
    assert.equal(created.details.validator_vote_key, vote);
    assert.equal(created.details.withdraw_authority, wallet.pubkey);
    assert.equal(hist.body.data.history[1].epoch, 1);
    assert.equal(
      hist.body.data.history[1].timestamp,
      new Date((GENESIS + EPOCH_SECONDS) * 1000).toISOString(),
    );
    assert.equal(hist.body.data.summary.epochs_active, 2);
    assert.equal(hist.body.data.summary.total_rewards_earned.sol, sa.balance.rewards_sol);
    assert.equal(hist.body.data.validators[0].vote_account, vote);
    assert.equal(hist.body.data.validators[0].identity, dev.chain.validators[0]?.identity);
    assert.equal(hist.body.data.validators[0].epochs_delegated, 2);
    assert.deepEqual(hist.body.pagination, { page: 1, page_size: 50, total_events: 4, has_more: false });
    const paged = await request(h.app)
      .get("/api/v1/history/events")
      .set("x-api-key", key)
      .query({ ...hq, excluded_event_type: "rewards_earned", page_size: 1, page: 2 });
    assert.equal(paged.status, 200);
    assert.deepEqual(
      paged.body.data.history.map((e: { event_type: string }) => e.event_type),
      ["delegation_activated"],
    );
    assert.deepEqual(paged.body.pagination, { page: 2, page_size: 1, total_events: 2, has_more: false });
    for (const page_size of [0, 1000]) {
      const bad = await request(h.app)
        .get("/api/v1/history/events")
        .set("x-api-key", key)
        .query({ ...hq, page_size });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.code, "VALIDATION_ERROR");
      assert.equal(bad.body.details[0].field, "page_size");
    }
    const inverted = await request(h.app)
      .get("/api/v1/history/events")
      .set("x-api-key", key)
      .query({ ...hq, end_time: GENESIS - 1 });
    assert.equal(inverted.status, 400);
    assert.equal(inverted.body.code, "VALIDATION_ERROR");
    assert.equal(inverted.body.details[0].field, "end_time");

    const early = await request(h.app)
      .post("/api/v1/withdraw")
      .set("x-api-key", key)
      .send({ validatorPubKey: vote, walletPubKey: wallet.pubkey, stakeAccountPubKey: acct, amount: 1 });
    assert.equal(early.status, 400);
    assert.equal(early.body.code, "STAKE_ACCOUNT_STILL_ACTIVE");

    const de = await request(h.app)
      .post("/api/v1/deactivate")
      .set("x-api-key", key)
      .send({ validatorPubkey: vote, walletPubkey: wallet.pubkey, stakeAccountPubkey: acct });
    assert.equal(de.status, 200, JSON.stringify(de.body));
    await send(wallet.sign(de.body.data.unsignedTransactionBase64));
    dev.advanceEpochs(1);

    const after1 = await request(h.app)
      .post("/api/v1/balance")
      .set("x-api-key", key)
      .send({ stakeAccountPubKeys: [acct] });
    assert.equal(after1.status, 200, JSON.stringify(after1.body));
    const held = after1.body.data.stakeAccounts[0];
    assert.equal(held.status, "inactive");
    const all = BigInt(held.lamports.total);

    const dust = await request(h.app)
      .post("/api/v1/withdraw")
      .set("x-api-key", key)
      .send({
        validatorPubKey: vote,
        walletPubKey: wallet.pubkey,
        stakeAccountPubKey: acct,
        amount: Number(all - 1n),
      });
    assert.equal(dust.status, 400);
    assert.equal(dust.body.code, "WITHDRAW_LEAVES_DUST");

    const wd = await request(h.app)
      .post("/api/v1/withdraw")
      .set("x-api-key", key)
      .send({
        validatorPubKey: vote,
        walletPubKey: wallet.pubkey,
        stakeAccountPubKey: acct,
        amount: Number(all),
      });
    assert.equal(wd.status, 200, JSON.stringify(wd.body));
    assert.equal(wd.body.data.amount, Number(all));
    await send(wallet.sign(wd.body.data.unsignedTransactionBase64));

    const gone = await request(h.app)
      .post("/api/v1/balance")
      .set("x-api-key", key)
      .send({ stakeAccountPubKeys: [acct] });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.code, "STAKE_ACCOUNT_NOT_FOUND");
    const closed = await request(h.app)
      .get("/api/v1/history/events")
      .set("x-api-key", key)
      .query({ start_time: GENESIS, end_time: GENESIS + 30 * 86_400, stake_accounts: acct });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    const last = closed.body.data.history.slice(-2) as {
      event_type: string;
      details: Record<string, string>;
    }[];
    assert.deepEqual(
      last.map((e) => e.event_type),
      ["deactivated", "withdrawn"],
    );
    assert.equal(last[1]?.details.recipient, wallet.pubkey);
    assert.equal(last[1]?.details.amount_sol, held.balance.total_sol);
    assert.equal(closed.body.data.summary.ending_balance.sol, "0");

    // Every lamport is accounted for: principal back, rewards earned, three fees paid.
    const rewards = all - 3_002_282_880n;
    assert.ok(rewards > 0n);
    assert.equal(lamports(), start + rewards - 3n * 5000n);
  });
});
