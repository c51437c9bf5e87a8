import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type BeaconEnv, indexedRows, startBeaconEnv } from "./fixtures.ts";

/**
 * A pubkey registered after the indexer has passed its epochs gets its history from the worker's bounded
 * backfill, and ends with exactly the rows it would have had if it had been registered from the start; a
 * pubkey already tracked by another organisation brings its indexed days into the new one's overview.
 */
let EARLY: string;
let LATE: string;
let devnet: BeaconEnv["devnet"];
let h: ControlPlaneHarness;
let env: BeaconEnv | undefined;
before(async () => {
  env = await startBeaconEnv({
    validators: 8,
    env: {
      BEACON_INDEXER_START_EPOCH: "1",
      BEACON_INDEXER_MAX_EPOCHS: "100",
      BEACON_BACKFILL_EPOCHS: "3",
    },
  });
  ({ devnet, h } = env);
  [EARLY, LATE] = [devnet.pubkeyOf(0), devnet.pubkeyOf(1)];
});
after(() => env?.close());

const indexer = async () => (await areaOf(h, "beacon-data")).indexer;
async function register(key: string, pubkey: string) {
  const res = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", key)
    .send({ pubkeys: [pubkey] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test("a pubkey registered late is backfilled for the last BEACON_BACKFILL_EPOCHS epochs", async () => {
  const a = await makeOrganisation(h.db);
  const b = await makeOrganisation(h.db);
  await register(a.apiKey, EARLY);
  await devnet.advanceToEndOfEpoch(4);
  await (await indexer()).runOnce();
  await register(b.apiKey, LATE);
  await devnet.advanceToEndOfEpoch(6);
  await (await indexer()).runOnce();

  // Epochs 5–6 by the step itself, 4 by the backfill (3 epochs up to the cursor), none before.
  const epochs = await supertest(h.app)
    .get("/api/rewards/epoch")
    .set("api-key", b.apiKey)
    .query({ start_epoch: 1, end_epoch: 6, per_page: 100 });
  assert.equal(epochs.status, 200, JSON.stringify(epochs.body));
  const seen = epochs.body.interval_summary
    .filter((e: { validators: unknown[] }) => e.validators.length > 0)
    .map((e: { epoch: number }) => e.epoch);
  assert.deepEqual(seen, [4, 5, 6]);
  const list = await supertest(h.app).get("/api/validators/list").set("api-key", b.apiKey);
  const history = list.body.results[0].validator.lifecycle.status_history;
  // First seen ACTIVE at the end of epoch 4 (the backfill's oldest epoch), not of epoch 5.
  const endOf4 = new Date(devnet.slotTime(4 * 8 + 7) * 1000).toISOString();
  assert.equal(history.find((s: { status: string }) => s.status === "ACTIVE")?.time, endOf4);
  // An organisation registering a pubkey another one has tracked for six epochs sees its days at once.
  const c = await makeOrganisation(h.db);
  await register(c.apiKey, EARLY);
  const overview = (key: string) => supertest(h.app).get("/api/rewards/overview").set("api-key", key);
  const [ofA, ofC] = [await overview(a.apiKey), await overview(c.apiKey)];
  assert.equal(ofC.status, 200, JSON.stringify(ofC.body));
  assert.notEqual(ofA.body.total_cl_rewards, "0");
  assert.deepEqual(ofC.body, ofA.body);
  const backfilled = await indexedRows(h.sql);

  // The same rows as an index where both pubkeys were tracked from epoch 4 on; EARLY's from epoch 1.
  await h.sql`truncate beacon_rewards, beacon_rewards_daily, beacon_rewards_org_daily, beacon_rewards_network_daily, beacon_transactions, beacon_status_history,
    beacon_validators, beacon_indexed_slots, beacon_indexer_cursor`;
  await h.sql`delete from beacon_tracked_validators where pubkey = ${LATE} and source = 'registered'`;
  const { indexer: fresh } = await areaOf(h, "beacon-data", {
    ...h.config,
    beaconData: { ...h.config.beaconData, maxEpochsPerStep: 3, backfillEpochs: 0 },
  });
  await fresh.runOnce();
  await register(b.apiKey, LATE);
  await fresh.runOnce();
  const reference = await indexedRows(h.sql);
  assert.deepEqual(backfilled.rewards, reference.rewards);
  assert.deepEqual(backfilled.daily, reference.daily);
  assert.deepEqual(backfilled.orgDaily, reference.orgDaily);
  assert.deepEqual(backfilled.networkDaily, reference.networkDaily);
  assert.deepEqual(backfilled.txs, reference.txs);
  assert.deepEqual(backfilled.history, reference.history);
  assert.deepEqual(
    backfilled.validators.map(({ indexed_from: _, ...v }) => v),
    reference.validators.map(({ indexed_from: _, ...v }) => v),
  );
});
