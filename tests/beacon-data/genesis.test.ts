import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type BeaconEnv, startBeaconEnv } from "./fixtures.ts";

// Epoch 0's consensus reward is measured from the genesis state, not from nothing: a validator in the
// genesis set did not earn its 32 ETH in epoch 0.
let devnet: BeaconEnv["devnet"];
let h: ControlPlaneHarness;
let env: BeaconEnv | undefined;
before(async () => {
  env = await startBeaconEnv({
    validators: 8,
    env: {
      BEACON_INDEXER_START_EPOCH: "0",
    },
  });
  ({ devnet, h } = env);
});
after(() => env?.close());

test("a genesis validator's epoch-0 reward is what it earned in epoch 0, not its genesis balance", async () => {
  const org = await makeOrganisation(h.db);
  const reg = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", org.apiKey)
    .send({ pubkeys: [devnet.pubkeyOf(0)] });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  await devnet.advanceToEndOfEpoch(2);
  await (await areaOf(h, "beacon-data")).indexer.runOnce();
  const res = await supertest(h.app)
    .get("/api/rewards/epoch")
    .set("api-key", org.apiKey)
    .query({ start_epoch: 0, end_epoch: 1, per_page: 10 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [epoch0] = res.body.interval_summary;
  assert.equal(epoch0.epoch, 0);
  const cl = BigInt(epoch0.validators[0].cl_reward);
  // A validator earns well under 1 ETH an epoch (a few thousand gwei here); 32 ETH is the deposit.
  assert.ok(cl < 1_000_000_000n, `epoch 0 CL reward ${cl} Gwei is the genesis balance, not a reward`);
  assert.ok(cl > 0n, "the validator did earn in epoch 0");
});
