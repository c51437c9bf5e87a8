import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createReadDb } from "@stake/db/client";
import supertest from "supertest";
import { createApp } from "../../control-plane/src/app.ts";
import { compose } from "../../control-plane/src/compose.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";

// With DATABASE_REPLICA_URLS the beacon-data reads go to the replica (drizzle
// `withReplicas`, `createReadDb`) and everything else to the primary. The "replica" is a second database
// holding different rows, so an answer tells which database served it.
let h: ControlPlaneHarness;
let replica: TestDatabase;
let reads: ReturnType<typeof createReadDb>;
let app: Awaited<ReturnType<typeof createApp>>;
const PK = `0x${"b4".repeat(48)}`;

before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "beacon-data" });
  replica = await createTestDatabase();
  reads = createReadDb(h.db, [replica.url], { max: 2 });
  const logger = createLogger({ level: "silent", service: "test" });
  const deps = { config: h.config, logger, db: h.db, redis: h.redis };
  app = await createApp({
    ...deps,
    root: await compose({ ...deps, reads: reads.reads }),
    checkResponses: true,
  });
});
after(async () => {
  await reads.close();
  await replica.drop();
  await h.close();
});

test("beacon-data reads are served by the replica, the API key by the primary", async () => {
  const org = await makeOrganisation(h.db);
  // The organisation as replication would have copied it; its validator and rewards only on the replica.
  const [row] = await h.sql`select row_to_json(o)::text as json from organisations o where id = ${org.id}`;
  await replica.sql`insert into organisations
    select * from json_populate_record(null::organisations, ${row?.json as string}::json)`;
  await replica.sql`insert into beacon_indexer_cursor (id, epoch, finalized_epoch, genesis_time, seconds_per_slot,
      slots_per_epoch) values ('beacon', 20, 18, 1742213400, 12, 32)`;
  await replica.sql`insert into beacon_tracked_validators (organisation_id, pubkey, source)
    values (${org.id}, ${PK}, 'registered')`;
  await replica.sql`insert into beacon_validators (pubkey, validator_index, beacon_status, balance_gwei)
    values (${PK}, 77, 'active_ongoing', 32000000000)`;
  await replica.sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei)
    select 77, e, 32000000000, 1000 + e, 0 from generate_series(10, 12) e`;

  const listed = await supertest(app).get("/api/validators/list").set("api-key", org.apiKey);
  assert.equal(listed.status, 200, JSON.stringify(listed.body));
  assert.equal(listed.body.total, 1, "the list is the replica's");
  assert.ok(JSON.stringify(listed.body.results).includes(PK), JSON.stringify(listed.body));
  const epochs = await supertest(app)
    .get("/api/rewards/epoch?start_epoch=10&end_epoch=12")
    .set("api-key", org.apiKey);
  assert.equal(epochs.status, 200, JSON.stringify(epochs.body));
  assert.match(JSON.stringify(epochs.body), /1011/, `the replica's rewards: ${JSON.stringify(epochs.body)}`);

  // The primary has none of it: the same reads on it would list nothing.
  const [onPrimary] = await h.sql`select count(*)::int as n from beacon_tracked_validators`;
  assert.equal(onPrimary?.n, 0);
  // A key the replica does not know still authenticates: keys are read on the primary.
  const [keys] = await replica.sql`select count(*)::int as n from api_keys`;
  assert.equal(keys?.n, 0);
});
