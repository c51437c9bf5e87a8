import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { PublicKey, StakeProgram } from "@solana/web3.js";
import request from "supertest";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "./setup.ts";

const alice = testWallet(0x31);
const mallory = testWallet(0x32);
// A program-derived address: valid base58, 32 bytes, off the ed25519 curve.
const OFF_CURVE = PublicKey.findProgramAddressSync([Buffer.from("x")], StakeProgram.programId)[0].toBase58();

describe("stake-account area rejects bad input clearly", () => {
  let dev: SolanaDevnet;
  let h: ControlPlaneHarness;
  let key: string;
  let vote: string;
  let aliceStake: string;
  const post = (path: string, body: object) => request(h.app).post(path).set("x-api-key", key).send(body);

  before(async () => {
    dev = await startSolanaDevnet({
      fund: [
        { pubkey: alice.pubkey, lamports: 10_000_000_000n },
        { pubkey: mallory.pubkey, lamports: 10_000_000_000n },
      ],
    });
    h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "solana-stake",
      SOLANA_RPC_URL: dev.url,
      SOLANA_MEV_API_URL: dev.mevUrl,
    });
    key = (await makeOrganisation(h.db)).apiKey;
    vote = dev.chain.validators[0]?.vote as string;
    const res = await post("/api/v1/stake", {
      validatorPubKey: vote,
      walletPubKey: alice.pubkey,
      amount: 1_000_000_000,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    dev.chain.submit(Buffer.from(alice.sign(res.body.data.unsignedTransactionBase64), "base64"));
    aliceStake = res.body.data.stakeAccountPubkey;
  });
  after(async () => {
    await h.close();
    await dev.close();
  });

  it("requires an API key", async () => {
    const res = await request(h.app).post("/api/v1/balance").send({ walletPubKey: alice.pubkey });
    assert.equal(res.status, 401);
    assert.equal(res.body.code, "MISSING_API_KEY");
  });

  it("rejects an amount below the minimum delegation", async () => {
    const res = await post("/api/v1/stake", {
      validatorPubKey: vote,
      walletPubKey: alice.pubkey,
      amount: 999_999_999,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "AMOUNT_BELOW_MINIMUM");
    assert.equal(res.body.details[0].field, "amount");
  });

  it("rejects malformed, off-curve and unknown keys", async () => {
    const bad = await post("/api/v1/stake", {
      validatorPubKey: vote,
      walletPubKey: "not-base58-0OIl",
      amount: 2e9,
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_PUBKEY");
    assert.equal(bad.body.details[0].field, "walletPubKey");
    const off = await post("/api/v1/stake", { validatorPubKey: vote, walletPubKey: OFF_CURVE, amount: 2e9 });
    assert.equal(off.status, 400);
    assert.equal(off.body.code, "INVALID_PUBKEY");
    assert.match(off.body.error, /off the ed25519 curve/);
    const noVote = await post("/api/v1/stake", {
      validatorPubKey: mallory.pubkey,
      walletPubKey: alice.pubkey,
      amount: 2e9,
    });
    assert.equal(noVote.status, 404);
    assert.equal(noVote.body.code, "VALIDATOR_NOT_FOUND");
    const missing = await post("/api/v1/stake", { walletPubKey: alice.pubkey, amount: 2e9 });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, "VALIDATION_ERROR");
    assert.deepEqual(missing.body.details, [{ field: "validatorPubKey", message: "Required" }]);
  });

  it("refuses someone else's stake account", async () => {
    const body = { validatorPubKey: vote, walletPubKey: mallory.pubkey, stakeAccountPubKey: aliceStake };
    const de = await post("/api/v1/deactivate", body);
    assert.equal(de.status, 403);
    assert.equal(de.body.code, "NOT_STAKE_AUTHORITY");
    const wd = await post("/api/v1/withdraw", { ...body, amount: 1 });
    assert.equal(wd.status, 403);
    assert.equal(wd.body.code, "NOT_WITHDRAW_AUTHORITY");
    const unknown = await post("/api/v1/deactivate", {
      ...body,
      walletPubKey: alice.pubkey,
      stakeAccountPubKey: testWallet(0x77).pubkey,
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, "STAKE_ACCOUNT_NOT_FOUND");
    const notStake = await post("/api/v1/deactivate", {
      ...body,
      walletPubKey: alice.pubkey,
      stakeAccountPubKey: mallory.pubkey,
    });
    assert.equal(notStake.status, 400);
    assert.equal(notStake.body.code, "NOT_A_STAKE_ACCOUNT");
  });

  it("refuses to withdraw from an active account", async () => {
    dev.advanceEpochs(2);
    const wd = await post("/api/v1/withdraw", {
      validatorPubKey: vote,
      walletPubKey: alice.pubkey,
      stakeAccountPubKey: aliceStake,
      amount: 1_000,
    });
    assert.equal(wd.status, 400);
    assert.equal(wd.body.code, "STAKE_ACCOUNT_STILL_ACTIVE");
  });

  it("balance needs exactly one selector", async () => {
    const both = await post("/api/v1/balance", {
      walletPubKey: alice.pubkey,
      stakeAccountPubKeys: [aliceStake],
    });
    assert.equal(both.status, 400);
    assert.equal(both.body.code, "SELECTOR_CONFLICT");
    const neither = await post("/api/v1/balance", {});
    assert.equal(neither.status, 400);
    assert.equal(neither.body.code, "SELECTOR_REQUIRED");
  });

  it("enforces the organisation's solana scope", async () => {
    const { apiKey: scoped } = await makeOrganisation(h.db, {
      scope: { solana: { delegator_addresses: [alice.pubkey], validator_addresses: [] } },
    });
    const res = await request(h.app)
      .post("/api/v1/balance")
      .set("api-key", scoped)
      .send({ walletPubkey: mallory.pubkey });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "ADDRESS_NOT_IN_SCOPE");
  });
});
