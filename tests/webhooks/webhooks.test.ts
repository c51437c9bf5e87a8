import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import { createApp } from "../../control-plane/src/app.ts";
import { loadConfig } from "../../control-plane/src/config.ts";
import { BuilderError } from "../../control-plane/src/errors.ts";
import { provisionJob } from "../../control-plane/src/features/beacon-provisioning/jobs.ts";
import { createProvisioningRepo } from "../../control-plane/src/features/beacon-provisioning/repo.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";

// Endpoints of both route groups, Standard Webhooks signatures checked by the
// reference library, retries with the same webhook-id, replay, rotation, auto-disable, the SSRF guard.
const ENV = {
  WEBHOOK_ALLOW_HTTP: "1",
  WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  WEBHOOK_RETRY_BASE_MS: "100",
  WEBHOOK_RETRY_MAX_MS: "400",
  WEBHOOK_POLL_INTERVAL_MS: "50",
  WEBHOOK_TIMEOUT_MS: "3000",
  WEBHOOK_DISABLE_AFTER_FAILURES: "3",
  WEBHOOK_DISABLE_AFTER_MS: "0",
  WEBHOOK_ENDPOINTS_PER_OWNER: "3",
};
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
const receivers: Receiver[] = [];
before(async () => {
  h = await createControlPlaneHarness(ENV);
  jobs = await startJobs(h, ["webhook-delivery"]);
});
after(async () => {
  await jobs?.close();
  await Promise.all(receivers.map((r) => r.close()));
  await h.close();
});

async function receiver(answer?: Parameters<typeof startReceiver>[0]) {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

async function createEndpoint(org: TestOrganisation, url: string, extra: Record<string, unknown> = {}) {
  const res = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url, ...extra });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; secret: string };
}

const sendTest = async (org: TestOrganisation, id: string) => {
  const res = await request(h.app).post(`/api/webhooks/endpoints/${id}/test`).set("api-key", org.apiKey);
  assert.equal(res.status, 202, JSON.stringify(res.body));
  return res.body.eventId as string;
};

const deliveries = async (org: TestOrganisation, id: string) => {
  const res = await request(h.app).get(`/api/webhooks/endpoints/${id}/deliveries`).set("api-key", org.apiKey);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.deliveries as {
    id: string;
    eventId: string;
    status: string;
    attempts: number;
    responseStatus: number | null;
    latencyMs: number | null;
    lastError: string | null;
  }[];
};

test("endpoints: create, list, get, update, delete; the secret is shown once; another organisation sees none", async () => {
  const org = await makeOrganisation(h.db);
  const other = await makeOrganisation(h.db);
  const r = await receiver();
  const created = await createEndpoint(org, r.url, {
    description: "ops",
    eventTypes: ["provision.completed"],
  });
  assert.match(created.secret, /^whsec_/);
  const list = await request(h.app).get("/api/webhooks/endpoints").set("api-key", org.apiKey);
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.endpoints.map((e: { id: string }) => e.id),
    [created.id],
  );
  assert.equal(JSON.stringify(list.body).includes("whsec_"), false, "the secret is never shown again");
  const updated = await request(h.app)
    .post(`/api/webhooks/endpoints/${created.id}`)
    .set("api-key", org.apiKey)
    .send({ description: "changed", eventTypes: [] });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.description, "changed");
  // Tenancy: another organisation's key finds nothing of it.
  for (const res of [
    await request(h.app).get(`/api/webhooks/endpoints/${created.id}`).set("api-key", other.apiKey),
    await request(h.app).delete(`/api/webhooks/endpoints/${created.id}`).set("api-key", other.apiKey),
    await request(h.app).post(`/api/webhooks/endpoints/${created.id}/test`).set("api-key", other.apiKey),
  ]) {
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.equal(res.body.code, "WEBHOOK_ENDPOINT_NOT_FOUND");
  }
  // A gateway user's event type is not an organisation's.
  const wrong = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: r.url, eventTypes: ["gateway.balance_low"] });
  assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
  assert.equal(wrong.body.code, "VALIDATION_ERROR");
  // At most WEBHOOK_ENDPOINTS_PER_OWNER (3) endpoints.
  await createEndpoint(org, r.url);
  await createEndpoint(org, r.url);
  const fourth = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: r.url });
  assert.equal(fourth.status, 409, JSON.stringify(fourth.body));
  assert.equal(fourth.body.code, "WEBHOOK_ENDPOINT_LIMIT_REACHED");
  const gone = await request(h.app)
    .delete(`/api/webhooks/endpoints/${created.id}`)
    .set("api-key", org.apiKey);
  assert.equal(gone.status, 204);
  assert.equal(
    (await request(h.app).get(`/api/webhooks/endpoints/${created.id}`).set("api-key", org.apiKey)).status,
    404,
  );
});

test("a test event arrives signed: the standardwebhooks library verifies it; the delivery records status, code and latency", async () => {
  const org = await makeOrganisation(h.db);
  const r = await receiver();
  const endpoint = await createEndpoint(org, r.url);
  const eventId = await sendTest(org, endpoint.id);
  const got = await eventually(() => r.received[0], { what: "the test event" });
  const payload = new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>) as {
    type: string;
    data: { endpointId: string };
  };
  assert.equal(payload.type, "webhook.test");
  assert.equal(payload.data.endpointId, endpoint.id);
  assert.equal(got.headers["webhook-id"], eventId);
  assert.throws(() =>
    new Webhook(endpoint.secret).verify(`${got.body} `, got.headers as Record<string, string>),
  );
  const [d] = await eventually(
    async () => {
      const list = await deliveries(org, endpoint.id);
      return list[0]?.status === "delivered" && list;
    },
    { what: "the delivery recorded" },
  );
  assert.equal(d?.attempts, 1);
  assert.equal(d?.responseStatus, 200);
  assert.equal(typeof d?.latencyMs, "number");
});

test("a receiver answering 500 then 200 gets the event twice with the same webhook-id; a replay sends it once more", async () => {
  const org = await makeOrganisation(h.db);
  const r = await receiver(({ n }) => (n === 0 ? 500 : 200));
  const endpoint = await createEndpoint(org, r.url);
  const eventId = await sendTest(org, endpoint.id);
  await eventually(() => r.received.length >= 2, { what: "the retry" });
  assert.deepEqual(
    r.received.map((x) => [x.status, x.headers["webhook-id"]]),
    [
      [500, eventId],
      [200, eventId],
    ],
  );
  for (const x of r.received)
    new Webhook(endpoint.secret).verify(x.body, x.headers as Record<string, string>);
  assert.equal(r.received[0]?.body, r.received[1]?.body, "the same body on every attempt");
  const [d] = await eventually(
    async () => {
      const list = await deliveries(org, endpoint.id);
      return list[0]?.status === "delivered" && list;
    },
    { what: "the delivery recorded" },
  );
  assert.equal(d?.attempts, 2);
  const replay = await request(h.app)
    .post(`/api/webhooks/deliveries/${d?.id}/replay`)
    .set("api-key", org.apiKey);
  assert.equal(replay.status, 202, JSON.stringify(replay.body));
  assert.equal(replay.body.eventId, eventId);
  await eventually(() => r.received.length >= 3, { what: "the replay" });
  assert.equal(r.received[2]?.headers["webhook-id"], eventId);
  const other = await makeOrganisation(h.db);
  const foreign = await request(h.app)
    .post(`/api/webhooks/deliveries/${d?.id}/replay`)
    .set("api-key", other.apiKey);
  assert.equal(foreign.status, 404, JSON.stringify(foreign.body));
});

test("a rotated secret: deliveries carry both signatures until the previous one expires", async () => {
  const org = await makeOrganisation(h.db);
  const r = await receiver();
  const endpoint = await createEndpoint(org, r.url);
  const rotated = await request(h.app)
    .post(`/api/webhooks/endpoints/${endpoint.id}/rotate-secret`)
    .set("api-key", org.apiKey);
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.notEqual(rotated.body.secret, endpoint.secret);
  await sendTest(org, endpoint.id);
  const got = await eventually(() => r.received[0], { what: "the event" });
  assert.equal(String(got.headers["webhook-signature"]).split(" ").length, 2);
  new Webhook(rotated.body.secret).verify(got.body, got.headers as Record<string, string>);
  new Webhook(endpoint.secret).verify(got.body, got.headers as Record<string, string>);
});

test("an endpoint failing WEBHOOK_DISABLE_AFTER_FAILURES times in a row is disabled and its owner told", async () => {
  const org = await makeOrganisation(h.db);
  const failing = await receiver(() => 500);
  const watcher = await receiver();
  const bad = await createEndpoint(org, failing.url);
  const good = await createEndpoint(org, watcher.url, { eventTypes: ["webhook.endpoint_disabled"] });
  await sendTest(org, bad.id);
  const told = await eventually(() => watcher.of("webhook.endpoint_disabled")[0], {
    what: "webhook.endpoint_disabled",
  });
  const event = new Webhook(good.secret).verify(told.body, told.headers as Record<string, string>) as {
    data: { endpointId: string; consecutiveFailures: number };
  };
  assert.equal(event.data.endpointId, bad.id);
  assert.equal(event.data.consecutiveFailures, 3);
  assert.equal(failing.received.length, 3);
  const state = await request(h.app).get(`/api/webhooks/endpoints/${bad.id}`).set("api-key", org.apiKey);
  assert.equal(state.body.enabled, false);
  assert.match(state.body.disabledReason, /3 failed attempts/);
  const refused = await request(h.app)
    .post(`/api/webhooks/endpoints/${bad.id}/test`)
    .set("api-key", org.apiKey);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
});

test("SSRF: a receiver on 127.0.0.1 is refused without the operator's allowance (API and delivery) and reached with it", async () => {
  const env = {
    ...ENV,
    DATABASE_URL: h.config.databaseUrl,
    REDIS_URL: h.config.redisUrl,
    REDIS_PREFIX: h.config.redisPrefix,
    LOG_LEVEL: "silent",
    ARGON2_MEMORY_KIB: "8192",
    ARGON2_ITERATIONS: "1",
    ETH_KEY_ENCRYPTION_KEY: h.config.eth.keyEncryptionKey,
    ETH_OPERATOR_SEED: h.config.eth.operatorSeed,
    GATEWAY_JWT_SECRET: h.config.gatewayAccount.jwtSecret,
  };
  // Never disabled by its refusals here: on a busy machine the refusing worker retried (every ≤ 400 ms) past
  // the disable rule's 3 failures before both refusals were seen, and the disabled endpoints then waited
  // for the allowed worker in vain.
  const strict = loadConfig({ ...env, WEBHOOK_ALLOWED_CIDRS: "", WEBHOOK_DISABLE_AFTER_MS: "3600000" });
  const app = await createApp({
    config: strict,
    logger: createLogger({ level: "silent", service: "t" }),
    db: h.db,
    redis: h.redis,
  });
  const org = await makeOrganisation(h.db);
  const r = await receiver();
  const refusals = new Set<string>();
  for (const url of [
    r.url,
    `http://localhost:${r.port}/`,
    `http://[::ffff:127.0.0.1]:${r.port}/`,
    "http://169.254.169.254/latest/meta-data",
    "http://does-not-exist.invalid/",
  ]) {
    const res = await request(app).post("/api/webhooks/endpoints").set("api-key", org.apiKey).send({ url });
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, "WEBHOOK_URL_REFUSED");
    // Regression: a name that does not resolve and one resolving to an internal address were told apart.
    refusals.add(res.body.error);
  }
  assert.equal(refusals.size, 1, `one refusal for every host: ${[...refusals].join(" | ")}`);
  const https = loadConfig({ ...env, WEBHOOK_ALLOW_HTTP: "0" });
  const httpsOnly = await createApp({
    config: https,
    logger: createLogger({ level: "silent", service: "t" }),
    db: h.db,
    redis: h.redis,
  });
  const plain = await request(httpsOnly)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: r.url });
  assert.equal(plain.status, 400);
  assert.match(plain.body.error, /https/);

  // The delivery checks again, on the address it connects to: a worker without the allowance never
  // reaches the receiver (a name resolving to 127.0.0.1 included), one with it does.
  await jobs?.close();
  jobs = await startJobs(h, ["webhook-delivery"], { config: strict });
  const byName = await createEndpoint(org, `http://localhost:${r.port}/by-name`);
  const byAddress = await createEndpoint(org, r.url);
  await sendTest(org, byName.id);
  await sendTest(org, byAddress.id);
  for (const id of [byName.id, byAddress.id])
    await eventually(async () => (await deliveries(org, id))[0]?.lastError?.startsWith("refused"), {
      what: "the refused attempt recorded",
    });
  assert.equal(r.received.length, 0, "nothing reached the receiver");
  await jobs.close();
  jobs = await startJobs(h, ["webhook-delivery"]);
  await eventually(() => r.received.length === 2, { what: "both delivered with the allowance" });
});

test("gateway users manage endpoints with their bearer token, in the gateway account API's error format", async () => {
  const email = `wh-${process.pid}-${Date.now()}@example.com`;
  const password = "Sup3rSecret";
  assert.equal((await request(h.app).post("/api/onboarding/signup").send({ email, password })).status, 201);
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const r = await receiver();
  const created = await request(h.app).post("/api/webhook/create").set(bearer).send({ url: r.url });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const list = await request(h.app).get("/api/webhook/list").set(bearer);
  assert.equal(list.body.endpoints.length, 1);
  const wrong = await request(h.app)
    .post("/api/webhook/create")
    .set(bearer)
    .send({ url: r.url, eventTypes: ["provision.completed"] });
  assert.equal(wrong.status, 400);
  assert.equal(typeof wrong.body.message, "string");
  assert.equal(wrong.body.code, undefined, "the gateway account API answers {message}");
  const test = await request(h.app).post(`/api/webhook/${created.body.id}/test`).set(bearer);
  assert.equal(test.status, 202, JSON.stringify(test.body));
  const got = await eventually(() => r.received[0], { what: "the gateway user's test event" });
  new Webhook(created.body.secret).verify(got.body, got.headers as Record<string, string>);
  // The rest of an endpoint's life under the bearer token: read, edit, replay a delivery, a new secret.
  const endpoint = `/api/webhook/${created.body.id}`;
  const read = await request(h.app).get(endpoint).set(bearer);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.url, r.url);
  const updated = await request(h.app).post(`${endpoint}/update`).set(bearer).send({ description: "orders" });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(updated.body.description, "orders");
  const delivered = await eventually(
    async () => {
      const res = await request(h.app).get(`${endpoint}/deliveries`).set(bearer);
      return (res.body.deliveries as { id: string; status: string }[]).find((d) => d.status === "delivered");
    },
    { what: "the test event's delivery recorded" },
  );
  const replay = await request(h.app).post(`/api/webhook/delivery/${delivered.id}/replay`).set(bearer);
  assert.equal(replay.status, 202, JSON.stringify(replay.body));
  await eventually(() => r.received.length >= 2, { what: "the replayed event" });
  const rotated = await request(h.app).post(`${endpoint}/rotate-secret`).set(bearer);
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.notEqual(rotated.body.secret, created.body.secret);
  const del = await request(h.app).post(`/api/webhook/${created.body.id}/delete`).set(bearer);
  assert.equal(del.status, 204);
});

test("provision.completed when a provision's validators are made; provision.failed after its last attempt", async () => {
  const org = await makeOrganisation(h.db);
  const r = await receiver();
  const endpoint = await createEndpoint(org, r.url, {
    eventTypes: ["provision.completed", "provision.failed"],
  });
  const provision = async () => {
    const res = await request(h.app)
      .post("/api/provision")
      .set("api-key", org.apiKey)
      .send({
        attributes: {
          withdrawalAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
          validatorsCount: 2,
          batch: false,
        },
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.result.provisionId as string;
  };
  const worker = await startJobs(h, [QUEUES.provision.name]);
  let done: string;
  let completed: Awaited<ReturnType<typeof r.of>>[number];
  try {
    done = await provision();
    completed = await eventually(() => r.of("provision.completed")[0], { what: "provision.completed" });
  } finally {
    await worker.close();
  }
  const event = new Webhook(endpoint.secret).verify(
    completed.body,
    completed.headers as Record<string, string>,
  ) as {
    data: { provisionId: string; validatorsCount: number; pubkeys: string[] };
  };
  const made = await request(h.app)
    .get("/api/validators")
    .query({ provisionId: done })
    .set("api-key", org.apiKey);
  assert.equal(made.body.provisionStatus, "CREATED", JSON.stringify(made.body));
  assert.deepEqual(event.data, {
    provisionId: done,
    validatorsCount: 2,
    pubkeys: made.body.results.map((v: { validatorAddress: string }) => v.validatorAddress),
  });

  // A job whose every attempt is refused: FAILED after the last one, and the event with it.
  const connection = createRedis(h.config, { name: "failing-provisioner", forQueues: true });
  const failing = provisionJob({
    connection,
    prefix: createRedisKeys(h.config.redisPrefix).queuePrefix,
    logger: createLogger({ level: "silent", service: "t" }),
    db: h.db,
    repo: createProvisioningRepo(h.db),
    run: async () => {
      throw new BuilderError("refused for the test");
    },
    concurrency: 1,
  });
  await failing.start();
  try {
    const refused = await provision();
    const failed = await eventually(() => r.of("provision.failed")[0], { what: "provision.failed" });
    assert.deepEqual(JSON.parse(failed.body).data, { provisionId: refused, reason: "refused for the test" });
    assert.equal(r.of("provision.failed").length, 1, "told once, after the last attempt only");
  } finally {
    await failing.close();
    await connection.quit();
  }
});
