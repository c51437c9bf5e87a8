import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "./setup.ts";

describe("stake-account area when the Solana node misbehaves", () => {
  // A node that accepts connections and never answers.
  const hang = createServer(() => {});
  let h: ControlPlaneHarness;
  let key: string;
  before(async () => {
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "solana-stake",
      SOLANA_RPC_URL: url,
      SOLANA_MEV_API_URL: url,
      SOLANA_TIMEOUT_MS: "200",
    });
    key = (await makeOrganisation(h.db)).apiKey;
  });
  after(async () => {
    await h.close();
    hang.closeAllConnections();
    await new Promise((r) => hang.close(r));
  });

  it("answers 504 UPSTREAM_TIMEOUT without leaking internals", async () => {
    const res = await request(h.app)
      .post("/api/v1/balance")
      .set("x-api-key", key)
      .send({ walletPubKey: testWallet(0x71).pubkey });
    assert.equal(res.status, 504);
    assert.deepEqual(res.body, { error: "Solana node did not answer in time", code: "UPSTREAM_TIMEOUT" });
  });
});
