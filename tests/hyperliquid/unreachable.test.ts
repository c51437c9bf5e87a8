import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Wallet } from "ethers";
import request from "supertest";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { approvedOrgKey, decodeUnsigned, signUnsigned } from "./setup.ts";

// Port 9 on loopback (discard) is closed here: every call is refused at once.
let h: ControlPlaneHarness;
let key: string;
const wallet = new Wallet(`0x${"11".repeat(32)}`);
before(async () => {
  h = await createControlPlaneHarness({ HYPERLIQUID_API_URL: "http://127.0.0.1:9" });
  key = await approvedOrgKey(h, "hl-down@example.com", []);
});
after(() => h.close());

test("broadcast and balance answer 502 UPSTREAM_UNAVAILABLE when the node is down", async () => {
  const prepared = await request(h.app)
    .post("/api/v1/staking/transfer")
    .set("api-key", key)
    .send({ amount: 1, delegatorAddress: wallet.address });
  assert.equal(prepared.status, 200, "building needs no node");
  const signed = await signUnsigned(decodeUnsigned(prepared.body.result.unsignedTransactionBase64), wallet);
  const sent = await request(h.app)
    .post("/api/v1/staking/broadcast")
    .set("api-key", key)
    .send({ signedTransaction: signed });
  assert.equal(sent.status, 502);
  assert.deepEqual(sent.body, { error: "Hyperliquid API is unreachable", code: "UPSTREAM_UNAVAILABLE" });
  const balance = await request(h.app)
    .get("/api/v1/staking/balance")
    .query({ delegatorAddress: wallet.address })
    .set("api-key", key);
  assert.equal(balance.status, 502);
  // The relay claim was given back, so the same signed transaction may be retried once the node is up.
  const again = await request(h.app)
    .post("/api/v1/staking/broadcast")
    .set("api-key", key)
    .send({ signedTransaction: signed });
  assert.equal(again.status, 502);
});
