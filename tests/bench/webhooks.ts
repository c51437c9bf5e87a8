import { Webhook } from "standardwebhooks";
import supertest from "supertest";
import { emitEvents, type OutboxEvent } from "../../control-plane/src/platform/outbox.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

/**
 * `npm run bench:webhooks`: 10,000 events written to the outbox in one transaction, then the
 * wall time until a local receiver has every one and Postgres records every delivery `delivered` (the
 * worker's delivery job in-process, real Postgres, real sockets, each request signed). The receiver
 * verifies a sample with the standardwebhooks library.
 */
const N = Number(process.env.BENCH_EVENTS ?? 10_000);
const h = await createControlPlaneHarness({
  WEBHOOK_ALLOW_HTTP: "1",
  WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  WEBHOOK_POLL_INTERVAL_MS: "20",
});
const receiver = await startReceiver();
try {
  const org = await makeOrganisation(h.db);
  const endpoint = await supertest(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: receiver.url });
  const events: OutboxEvent[] = Array.from({ length: N }, (_, i) => ({
    owner: { kind: "organisation", id: org.id },
    type: "validator.status_changed",
    data: {
      pubkey: `0x${i.toString(16).padStart(96, "0")}`,
      validatorIndex: i,
      previousStatus: "PENDING",
      status: "ACTIVE",
      epoch: 1,
    },
  }));
  let t = performance.now();
  await h.db.transaction((tx) => emitEvents(tx, events));
  const writeMs = performance.now() - t;
  t = performance.now();
  const jobs = await startJobs(h, ["webhook-delivery"]);
  for (;;) {
    const [row] = await h.sql`select count(*)::int as n from webhook_deliveries where status = 'delivered'`;
    if (row?.n === N) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const deliverMs = performance.now() - t;
  await jobs.close();
  const verifier = new Webhook(endpoint.body.secret);
  for (const r of receiver.received.slice(0, 100))
    verifier.verify(r.body, r.headers as Record<string, string>);
  const ids = new Set(receiver.received.map((r) => r.headers["webhook-id"]));
  console.log(`outbox write: ${N} events in one transaction: ${writeMs.toFixed(0)} ms`);
  console.log(
    `delivery: ${N} events to a local receiver in ${(deliverMs / 1000).toFixed(2)} s (${Math.round(N / (deliverMs / 1000))}/s), ` +
      `${receiver.received.length} requests, ${ids.size} distinct webhook-ids, concurrency ${h.config.webhooks.concurrency}`,
  );
  if (deliverMs > 30_000) process.exitCode = 1;
} finally {
  await receiver.close();
  await h.close();
}
