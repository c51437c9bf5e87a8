import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import request from "supertest";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// Deliveries are claimed fairly per owner, and finished ones are deleted after the retention period
// (docs/operations.md, "Webhooks").
const TIMEOUT_MS = 3000;
const ENV = {
  WEBHOOK_ALLOW_HTTP: "1",
  WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  WEBHOOK_POLL_INTERVAL_MS: "50",
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_CONCURRENCY: "8",
  WEBHOOK_CONCURRENCY_PER_OWNER: "2",
  WEBHOOK_DISABLE_AFTER_MS: "3600000",
};
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
const receivers: Receiver[] = [];
before(async () => {
  h = await createControlPlaneHarness(ENV);
});
after(async () => {
  await jobs?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function endpointOf(org: TestOrganisation, r: Receiver) {
  const res = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: r.url });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id as string;
}
async function sendTest(org: TestOrganisation, id: string) {
  const res = await request(h.app).post(`/api/webhooks/endpoints/${id}/test`).set("api-key", org.apiKey);
  assert.equal(res.status, 202, JSON.stringify(res.body));
}

test("regression: 40 queued events to a silent receiver do not delay another organisation's first attempt", async (t) => {
  const silent = await startReceiver(() => "hold");
  const quick = await startReceiver();
  receivers.push(silent, quick);
  const noisy = await makeOrganisation(h.db);
  const other = await makeOrganisation(h.db);
  const noisyEndpoint = await endpointOf(noisy, silent);
  const otherEndpoint = await endpointOf(other, quick);
  for (let i = 0; i < 40; i++) await sendTest(noisy, noisyEndpoint);
  jobs = await startJobs(h, ["webhook-delivery"]);
  await eventually(() => silent.received.length >= 2, { what: "the silent receiver holding attempts" });
  const sent = Date.now();
  await sendTest(other, otherEndpoint);
  await eventually(() => quick.received.length === 1, { what: "the other organisation's event" });
  const waited = Date.now() - sent;
  t.diagnostic(`the other organisation's first attempt after ${waited} ms`);
  // Oldest first across owners, the noisy backlog filled all 8 slots for TIMEOUT_MS at a time.
  assert.ok(waited < TIMEOUT_MS - 500, `the other organisation waited ${waited} ms`);
  assert.ok(
    silent.received.length <= 2,
    `the noisy owner had ${silent.received.length} attempts in flight (cap 2)`,
  );
});

test("regression: delivered and failed deliveries past WEBHOOK_RETENTION_DAYS are deleted, pending ones and recent ones kept", async () => {
  const r = await startReceiver();
  receivers.push(r);
  const org = await makeOrganisation(h.db);
  const endpoint = await endpointOf(org, r);
  for (let i = 0; i < 4; i++) await sendTest(org, endpoint);
  jobs ??= await startJobs(h, ["webhook-delivery"]);
  await eventually(() => r.received.length === 4, { what: "four deliveries" });
  const ids = async () =>
    (
      await h.db.execute<{ id: string }>(
        sql`select id from webhook_deliveries where endpoint_id = ${endpoint} order by id`,
      )
    ).map((row) => row.id);
  await eventually(
    async () =>
      (
        await h.db.execute<{ n: number }>(
          sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpoint} and status = 'delivered'`,
        )
      )[0]?.n === 4,
    { what: "four recorded delivered" },
  );
  const [oldDelivered, oldFailed, oldPending, recent] = await ids();
  const aged = (id: string | undefined, status: string) =>
    h.db.execute(sql`
      with d as (
        update webhook_deliveries set created_at = now() - interval '40 days',
          status = ${status}::webhook_delivery_status, next_attempt_at = now() + interval '1 day'
        where id = ${id} returning event_id)
      update webhook_events set created_at = now() - interval '40 days' where id in (select event_id from d)`);
  await aged(oldDelivered, "delivered");
  await aged(oldFailed, "failed");
  await aged(oldPending, "pending");
  const retention = await startJobs(h, ["webhook-retention"]);
  try {
    await eventually(async () => (await ids()).length === 2, { what: "the old finished deliveries deleted" });
  } finally {
    await retention.close();
  }
  assert.deepEqual(await ids(), [oldPending, recent].sort());
  const events = await h.db.execute<{ n: number }>(
    sql`select count(*)::int as n from webhook_events where owner_id = ${org.id}`,
  );
  assert.equal(events[0]?.n, 2, "the events of the deleted deliveries are gone, the others kept");
});
