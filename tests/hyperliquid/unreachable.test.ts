import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { Wallet } from "ethers";
import request from "supertest";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { decodeUnsigned, delegationOrgKey, signUnsigned } from "./setup.ts";

// Port 9 on loopback (discard) is closed here: every call is refused at once.
let h: ControlPlaneHarness;
let key: string;
const wallet = new Wallet(`0x${"11".repeat(32)}`);
before(async () => {
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "hyperliquid-delegation",
    HYPERLIQUID_API_URL: "http://127.0.0.1:9",
  });
  key = await delegationOrgKey(h, []);
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

test("a node that does not answer in time is 504 UPSTREAM_TIMEOUT (the same as every area)", async () => {
  const silent = createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  const slow = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "hyperliquid-delegation",
    HYPERLIQUID_API_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
    HYPERLIQUID_TIMEOUT_MS: "200",
  });
  try {
    const slowKey = await delegationOrgKey(slow, []);
    const res = await request(slow.app)
      .get("/api/v1/staking/balance")
      .query({ delegatorAddress: wallet.address })
      .set("api-key", slowKey);
    assert.equal(res.status, 504);
    assert.deepEqual(res.body, { error: "Hyperliquid API did not answer in time", code: "UPSTREAM_TIMEOUT" });
  } finally {
    await slow.close();
    silent.closeAllConnections();
    silent.close();
  }
});
