import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { NONCE_ACCOUNT_LENGTH, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import request from "supertest";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "./setup.ts";

const secret = new Uint8Array(32).fill(0x61);
const wallet = testWallet(0x61);

describe("durable-nonce stake transaction", () => {
  let dev: SolanaDevnet;
  let h: ControlPlaneHarness;
  let key: string;
  let nonce: string;
  const nonceValue = () =>
    base58.encode((dev.chain.svm.getAccount(nonce as never) as { data: Uint8Array }).data.subarray(40, 72));

  before(async () => {
    dev = await startSolanaDevnet({ fund: [{ pubkey: wallet.pubkey, lamports: 5_000_000_000n }] });
    h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "solana-stake",
      SOLANA_RPC_URL: dev.url,
      SOLANA_MEV_API_URL: dev.mevUrl,
    });
    key = (await makeOrganisation(h.db)).apiKey;
    // A keyless nonce account: derived from the wallet with a seed, the wallet as its authority.
    const w = new PublicKey(wallet.pubkey);
    const noncePk = await PublicKey.createWithSeed(w, "nonce:0", SystemProgram.programId);
    const tx = new Transaction({ feePayer: w, recentBlockhash: dev.chain.svm.latestBlockhash() }).add(
      SystemProgram.createNonceAccount({
        fromPubkey: w,
        noncePubkey: noncePk,
        basePubkey: w,
        seed: "nonce:0",
        authorizedPubkey: w,
        lamports: Number(dev.chain.svm.minimumBalanceForRentExemption(BigInt(NONCE_ACCOUNT_LENGTH))),
      }),
    );
    tx.addSignature(w, Buffer.from(ed25519.sign(tx.serializeMessage(), secret)));
    dev.chain.submit(tx.serialize());
    nonce = noncePk.toBase58();
  });
  after(async () => {
    await h.close();
    await dev.close();
  });

  it("puts AdvanceNonceAccount first, uses the stored nonce, and lands after the blockhash moved on", async () => {
    const stored = nonceValue();
    const res = await request(h.app).post("/api/v1/stake").set("x-api-key", key).send({
      validatorPubKey: dev.chain.validators[0]?.vote,
      walletPubKey: wallet.pubkey,
      amount: 1_000_000_000,
      nonceAccountPubKey: nonce,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.blockhash, stored);
    assert.equal(res.body.data.lastValidBlockHeight, null);
    assert.equal(res.body.data.nonceAccountPubkey, nonce);
    dev.advanceEpochs(1); // the recent blockhash expires; the durable nonce does not
    dev.chain.submit(Buffer.from(wallet.sign(res.body.data.unsignedTransactionBase64), "base64"));
    assert.notEqual(nonceValue(), stored, "the nonce advanced");
    assert.ok(dev.chain.stakeAccounts().some((a) => a.pubkey === res.body.data.stakeAccountPubkey));
  });

  it("refuses a nonce account the wallet does not control", async () => {
    const res = await request(h.app).post("/api/v1/stake").set("x-api-key", key).send({
      validatorPubKey: dev.chain.validators[0]?.vote,
      walletPubKey: wallet.pubkey,
      amount: 1_000_000_000,
      nonceAccountPubKey: dev.chain.validators[0]?.identity,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_NONCE_ACCOUNT");
  });
});
