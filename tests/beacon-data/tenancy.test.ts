import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { createBeaconDataRepo } from "../../control-plane/src/features/beacon-data/repo.ts";
import { createTracking } from "../../control-plane/src/features/beacon-data/tracking.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";

// A pubkey one organisation provisioned and another registers: the second sees the validator as the chain
// shows it, never the first's provisioning data (its fee recipient, its credentials before any deposit, its
// CREATED entry and creation time).
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>>;
const PK = `0x${"a7".repeat(48)}`;
const FEE_RECIPIENT = `0x${"f1".repeat(20)}`;
const CREDENTIALS = `0x01${"00".repeat(11)}${"c2".repeat(20)}`;

before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "beacon-data" });
  await h.sql`insert into beacon_indexer_cursor (id, epoch, finalized_epoch, genesis_time, seconds_per_slot, slots_per_epoch)
    values ('beacon', 100, 98, 1742213400, 12, 32)`;
  jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
});
after(async () => {
  await jobs.close();
  await h.close();
});

test("an organisation that registers another's provisioned pubkey sees none of its provisioning data", async () => {
  const provisioner = await makeOrganisation(h.db);
  const registrant = await makeOrganisation(h.db);
  await createTracking(h.db).track([
    {
      organisationId: provisioner.id,
      pubkey: PK,
      feeRecipient: FEE_RECIPIENT,
      withdrawalCredentials: CREDENTIALS,
      createdAt: new Date("2026-11-20T10:00:00Z"),
    },
  ]);
  // Registered as POST /api/validators/register stores it (the route also asks a beacon node first).
  await createBeaconDataRepo(h.db).register(registrant.id, [PK]);

  const listed = async (key: string) => {
    const res = await supertest(h.app).get("/api/validators/list").set("api-key", key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.total, 1);
    return JSON.stringify(res.body.results[0]);
  };
  const own = await listed(provisioner.apiKey);
  assert.ok(own.includes(FEE_RECIPIENT.slice(2)), `the provisioner sees its fee recipient: ${own}`);
  assert.ok(own.includes("CREATED"), `the provisioner sees its CREATED entry: ${own}`);
  const theirs = await listed(registrant.apiKey);
  for (const secret of [FEE_RECIPIENT.slice(2), "c2".repeat(20), "CREATED", "2026-11-20"])
    assert.ok(
      !theirs.toLowerCase().includes(secret.toLowerCase()),
      `${secret} leaked to the registrant: ${theirs}`,
    );
});

test("status history entries at the same time are in lifecycle order, not alphabetical", async () => {
  const org = await makeOrganisation(h.db);
  const pubkey = `0x${"b8".repeat(48)}`;
  await createBeaconDataRepo(h.db).register(org.id, [pubkey]);
  // One epoch can show a deposit, its processing and activation (the devnet's short epochs do).
  await h.sql`insert into beacon_status_history (pubkey, status, time, epoch) values
    (${pubkey}, 'ACTIVE', '2026-11-21T00:00:00Z', 5), (${pubkey}, 'DEPOSITED', '2026-11-21T00:00:00Z', 5),
    (${pubkey}, 'PENDING', '2026-11-21T00:00:00Z', 5)`;
  const res = await supertest(h.app).get("/api/validators/list").set("api-key", org.apiKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.results[0].validator.lifecycle.status_history.map((e: { status: string }) => e.status),
    ["DEPOSITED", "PENDING", "ACTIVE"],
  );
});

test("a history follows cause, not clocks: a deposit block stamped before the provisioning lists after it", async () => {
  const org = await makeOrganisation(h.db);
  const pubkey = `0x${"c9".repeat(48)}`;
  await createTracking(h.db).track([
    {
      organisationId: org.id,
      pubkey,
      feeRecipient: null,
      withdrawalCredentials: CREDENTIALS,
      createdAt: new Date("2026-11-21T01:06:48Z"),
    },
  ]);
  // A node whose head lagged the wall clock: its deposit block reads 28 s before the provisioning.
  await h.sql`insert into beacon_status_history (pubkey, status, time, epoch) values
    (${pubkey}, 'DEPOSITED', '2026-11-21T01:06:20Z', 5), (${pubkey}, 'PENDING', '2026-11-21T01:07:00Z', 6)`;
  const res = await supertest(h.app).get("/api/validators/list").set("api-key", org.apiKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    res.body.results[0].validator.lifecycle.status_history.map((e: { status: string; time: string }) => [
      e.status,
      new Date(e.time).toISOString(),
    ]),
    [
      ["CREATED", "2026-11-21T01:06:48.000Z"],
      ["DEPOSITED", "2026-11-21T01:06:48.000Z"],
      ["PENDING", "2026-11-21T01:07:00.000Z"],
    ],
  );
});
