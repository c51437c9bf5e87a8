import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { spawnOwned } from "../../scripts/lib/owned.ts";
import { entryCommand, type Started } from "../../scripts/lib/processes.ts";
import { kill, waitForLine } from "../faults/stack.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// A worker SIGKILLed while its deliveries are in flight loses none of them: the claims
// are leases in Postgres, and the next worker delivers them, with the same webhook-id.
const ENV = {
  WEBHOOK_ALLOW_HTTP: "1",
  WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  WEBHOOK_POLL_INTERVAL_MS: "50",
  // The lease is the attempt bound + 5 s: what a killed worker's claims wait before they come due again.
  WEBHOOK_TIMEOUT_MS: "1000",
  WEBHOOK_RETRY_BASE_MS: "100",
  WEBHOOK_RETRY_MAX_MS: "200",
};
let h: ControlPlaneHarness;
let receiver: Receiver;
let holding = true;
before(async () => {
  h = await createControlPlaneHarness(ENV);
  // Held (never answered) while `holding`: the first worker dies with every request open.
  receiver = await startReceiver(() => (holding ? "hold" : 200));
});
after(async () => {
  await receiver.close();
  await h.close();
});

function startWorker(): Started {
  const env = {
    ...process.env,
    ...ENV,
    DATABASE_URL: h.config.databaseUrl,
    REDIS_URL: h.config.redisUrl,
    REDIS_PREFIX: h.config.redisPrefix,
    LOG_LEVEL: "silent",
    ETH_KEY_ENCRYPTION_KEY: h.config.eth.keyEncryptionKey,
    ETH_OPERATOR_SEED: h.config.eth.operatorSeed,
    GATEWAY_JWT_SECRET: h.config.gatewayAccount.jwtSecret,
  };
  return {
    name: "webhook-worker",
    url: "",
    child: spawnOwned(process.execPath, entryCommand("tests/webhooks/delivery-worker.ts"), {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    }),
  };
}

test("a worker killed mid-delivery loses nothing: the next worker delivers every event", async () => {
  const org = await makeOrganisation(h.db);
  const created = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: receiver.url });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const events: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await request(h.app)
      .post(`/api/webhooks/endpoints/${created.body.id}/test`)
      .set("api-key", org.apiKey);
    events.push(res.body.eventId);
  }
  const first = startWorker();
  await waitForLine(first, /^READY/);
  await eventually(() => receiver.received.length === 5, { what: "all five requests in flight" });
  await kill(first);
  holding = false;
  const second = startWorker();
  try {
    await waitForLine(second, /^READY/);
    await eventually(
      async () => {
        const [row] =
          await h.sql`select count(*)::int as n from webhook_deliveries where status = 'delivered'`;
        return row?.n === 5;
      },
      { what: "every delivery recorded delivered" },
    );
  } finally {
    await kill(second);
  }
  const answered = receiver.received.filter((r) => r.status === 200).map((r) => r.headers["webhook-id"]);
  assert.deepEqual(
    [...new Set(answered)].sort(),
    [...events].sort(),
    "each event delivered, same webhook-id",
  );
});
