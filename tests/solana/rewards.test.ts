import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { lamportsToSol } from "../../control-plane/src/features/solana-stake/codec.ts";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "./setup.ts";

const wallet = testWallet(0x41);
const GENESIS = 1_700_000_000;
const SLOTS = 2160n; // 864 s per epoch at 400 ms a slot

describe("rewards per epoch: inflation + MEV, cached in Postgres", () => {
  let dev: SolanaDevnet;
  let h: ControlPlaneHarness;
  let key: string;
  let acct: string;
  const get = (q: Record<string, string | number>) =>
    request(h.app).get("/api/v1/rewards").set("x-api-key", key).query(q);

  before(async () => {
    dev = await startSolanaDevnet({
      slotsPerEpoch: SLOTS,
      genesisUnix: BigInt(GENESIS),
      fund: [{ pubkey: wallet.pubkey, lamports: 10_000_000_000n }],
    });
    h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "solana-stake",
      SOLANA_RPC_URL: dev.url,
      SOLANA_MEV_API_URL: dev.mevUrl,
      LOG_LEVEL: "error",
    });
    key = (await makeOrganisation(h.db)).apiKey;
    const res = await request(h.app).post("/api/v1/stake").set("x-api-key", key).send({
      validatorPubKey: dev.chain.validators[1]?.vote,
      walletPubKey: wallet.pubkey,
      amount: 5_000_000_000,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    dev.chain.submit(Buffer.from(wallet.sign(res.body.data.unsignedTransactionBase64), "base64"));
    acct = res.body.data.stakeAccountPubkey;
    dev.advanceEpochs(5);
  });
  after(async () => {
    await h.close();
    await dev.close();
  });

  it("lists completed epochs with the node's inflation and the MEV API's tips", async () => {
    const q = {
      start_time: GENESIS,
      end_time: GENESIS + 6 * 864,
      period: "monthly",
      wallet_address: wallet.pubkey,
    };
    const res = await get(q);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, "success");
    const entries = res.body.data.rewards as {
      epoch: number;
      reward_types: { inflation_rewards: { sol: string }; mev_rewards: { sol: string } };
      time_start: string;
      time_end: string;
    }[];
    assert.deepEqual(
      entries.map((e) => e.epoch),
      [0, 1, 2, 3, 4],
    );
    assert.equal(res.body.metadata.epochs_included, 5);
    assert.equal(entries[0]?.reward_types.inflation_rewards.sol, "0", "still activating in epoch 0");
    let total = 0n;
    for (const e of entries.slice(1)) {
      const inf = dev.chain.inflation.get(`${acct}:${e.epoch}`);
      const mev = dev.chain.mev.find((m) => m.claimant === acct && m.epoch === e.epoch);
      assert.ok(inf && mev);
      assert.equal(e.reward_types.inflation_rewards.sol, lamportsToSol(BigInt(inf.amount)));
      assert.equal(e.reward_types.mev_rewards.sol, lamportsToSol(BigInt(mev.amount)));
      total += BigInt(inf.amount + mev.amount);
    }
    assert.equal(res.body.data.total_rewards.sol, lamportsToSol(total));
    assert.equal(entries[1]?.time_start, new Date((GENESIS + 864) * 1000).toISOString());
    assert.equal(entries[1]?.time_end, new Date((GENESIS + 2 * 864) * 1000).toISOString());

    // Past epochs come from Postgres: asking again sends no reward queries to the node.
    const before = dev.calls.get("getInflationReward");
    const again = await get({ ...q, wallet_address: undefined as never, stake_accounts: acct });
    assert.equal(again.status, 200);
    assert.equal(again.body.data.total_rewards.sol, lamportsToSol(total));
    assert.equal(dev.calls.get("getInflationReward"), before);
  });

  it("rejects inverted and over-long spans and bad selectors", async () => {
    const inverted = await get({
      start_time: GENESIS + 10,
      end_time: GENESIS,
      wallet_address: wallet.pubkey,
    });
    assert.equal(inverted.status, 400);
    assert.equal(inverted.body.code, "VALIDATION_ERROR");
    assert.equal(inverted.body.details[0].field, "end_time");
    const long = await get({
      start_time: GENESIS,
      end_time: GENESIS + 2 * 864,
      wallet_address: wallet.pubkey,
    });
    assert.equal(long.status, 400);
    assert.equal(long.body.code, "SPAN_EXCEEDS_PERIOD");
    const weekly = await get({
      start_time: GENESIS,
      end_time: GENESIS + 8 * 86_400,
      period: "weekly",
      wallet_address: wallet.pubkey,
    });
    assert.equal(weekly.body.code, "SPAN_EXCEEDS_PERIOD");
    const both = await get({
      start_time: GENESIS,
      end_time: GENESIS + 1,
      wallet_address: wallet.pubkey,
      stake_accounts: acct,
    });
    assert.equal(both.status, 400);
    assert.equal(both.body.code, "SELECTOR_CONFLICT");
    const neither = await get({ start_time: GENESIS, end_time: GENESIS + 1 });
    assert.equal(neither.body.code, "SELECTOR_REQUIRED");
    const period = await get({
      start_time: GENESIS,
      end_time: GENESIS + 1,
      period: "daily",
      wallet_address: wallet.pubkey,
    });
    assert.equal(period.status, 400);
    assert.equal(period.body.code, "VALIDATION_ERROR");
    assert.equal(period.body.details[0].field, "period");
  });
});
