import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type BeaconEnv, startBeaconEnv } from "./fixtures.ts";

// Any well-formed pubkey was registered, without a cap or a rate limit, and each
// organisation's late registrations were backfilled without one budget for all.
let devnet: BeaconEnv["devnet"];
let h: ControlPlaneHarness;
let env: BeaconEnv | undefined;
before(async () => {
  env = await startBeaconEnv({
    validators: 8,
    env: {
      BEACON_INDEXER_START_EPOCH: "1",
      BEACON_INDEXER_MAX_EPOCHS: "100",
      BEACON_BACKFILL_EPOCHS: "5",
      BEACON_BACKFILL_EPOCHS_PER_STEP: "1",
      BEACON_REGISTERED_PER_ORGANISATION: "2",
      BEACON_REGISTER_PER_MINUTE: "3",
    },
  });
  ({ devnet, h } = env);
});
after(() => env?.close());

const register = (key: string, pubkeys: string[]) =>
  supertest(h.app).post("/api/validators/register").set("api-key", key).send({ pubkeys });

test("a pubkey the beacon chain does not know is refused (422 VALIDATOR_UNKNOWN), nothing stored", async () => {
  const org = await makeOrganisation(h.db);
  const unknown = `0x${"ab".repeat(48)}`;
  const res = await register(org.apiKey, [devnet.pubkeyOf(0), unknown]);
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.code, "VALIDATOR_UNKNOWN");
  const [row] =
    await h.sql`select count(*)::int as n from beacon_tracked_validators where organisation_id = ${org.id}`;
  assert.equal(row?.n, 0);
});

test("registrations are capped per organisation (409) and rate-limited per organisation (429)", async () => {
  const org = await makeOrganisation(h.db);
  const two = await register(org.apiKey, [devnet.pubkeyOf(0), devnet.pubkeyOf(1)]);
  assert.equal(two.status, 200, JSON.stringify(two.body));
  const third = await register(org.apiKey, [devnet.pubkeyOf(2)]);
  assert.equal(third.status, 409, JSON.stringify(third.body));
  assert.equal(third.body.code, "REGISTRATION_LIMIT_REACHED");
  // Registering again what is registered is no new pubkey: still 200.
  assert.equal((await register(org.apiKey, [devnet.pubkeyOf(0)])).status, 200);
  const limited = await register(org.apiKey, [devnet.pubkeyOf(0)]);
  assert.equal(limited.status, 429, JSON.stringify(limited.body));
  assert.ok(Number(limited.headers["retry-after"]) >= 1);
});

test("late registrations of every organisation share one backfill budget per indexer step", async () => {
  const [a, b] = [await makeOrganisation(h.db), await makeOrganisation(h.db)];
  const { indexer } = await areaOf(h, "beacon-data");
  await devnet.advanceToEndOfEpoch(4);
  await indexer.runOnce();
  assert.equal((await register(a.apiKey, [devnet.pubkeyOf(2)])).status, 200);
  assert.equal((await register(b.apiKey, [devnet.pubkeyOf(3)])).status, 200);
  await devnet.advanceToEndOfEpoch(6);
  const from = async () =>
    (
      await h.sql`select indexed_from from beacon_validators where pubkey in ${h.sql([devnet.pubkeyOf(2), devnet.pubkeyOf(3)])} order by pubkey`
    ).map((r) => r.indexed_from);
  await indexer.runOnce();
  // Both organisations' pubkeys start at epoch 5: one epoch (4) read for both together, not 2–4.
  assert.deepEqual(await from(), [4, 4]);
  await indexer.runOnce();
  assert.deepEqual(await from(), [3, 3]);
});
