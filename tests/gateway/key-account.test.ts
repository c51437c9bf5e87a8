import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { coinsToBaseUnits } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { createRedisKeys } from "@stake/db/redis/keys";
import { auditLog, coinRates, gatewayUsers, providers } from "@stake/db/schema/index";
import { and, eq } from "drizzle-orm";
import request from "supertest";
import { creditParty } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually, sleep } from "../helpers/eventually.ts";
import { startGateway } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";

// A gateway key's budget and rotation through the account API and a real gateway on the same Postgres and
// Redis: named limits, the key's spend caps, its last use, rotation with a grace window.
let h: ControlPlaneHarness;
let gateway: Awaited<ReturnType<typeof startGateway>>;
const upstream = createServer((_req, res) => res.end("paid response"));
let bearer: Record<string, string>;
let partyId: string;

before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "gateway-account" });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  const port = (upstream.address() as AddressInfo).port;
  // 0.25 USD at 0.5 USD per coin: 0.5 coins a request.
  await h.db
    .insert(providers)
    .values({ id: newId("provider"), key: "demo", originUrl: `http://127.0.0.1:${port}`, costInUsd: "0.25" });
  await h.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: "0.5" });
  gateway = await startGateway(h.config, { GATEWAY_PARTY_RATE_LIMIT: "1000" });
  const who = { email: "keys.user@example.com", password: "Sup3rSecret" };
  await request(h.app).post("/api/onboarding/signup").send(who);
  const login = await request(h.app).post("/api/onboarding/login").send(who);
  bearer = { Authorization: `Bearer ${login.body.token}` };
  partyId = (await request(h.app).post("/api/party/create").set(bearer)).body.partyId;
  await creditParty(h.db, h.redis, createRedisKeys(h.config.redisPrefix), {
    partyId,
    amount: coinsToBaseUnits("100"),
    ref: "keys-fund",
  });
});
after(async () => {
  await gateway.close();
  upstream.close();
  await h.close();
});

let idem = 0;
const call = (key: string) =>
  send(`${gateway.url}/gateway/demo/hello`, {
    headers: ["x-gateway-api-key", key, "idempotency-key", `ka${++idem}`],
  });
const listed = async (id: string) =>
  (await request(h.app).get("/api/api-key/list").set(bearer)).body.keys.find(
    (k: { id: string }) => k.id === id,
  );
const body = (r: { body: Buffer }) => r.body.toString();

test("named limits: past one the gateway answers 429 naming it, the RateLimit fields list every window; set and dropped through the API", async () => {
  const bad = await request(h.app)
    .post("/api/api-key/create")
    .set(bearer)
    .send({ limits: [{ name: "party", requests: 1, windowSeconds: 1 }] });
  assert.equal(bad.status, 400, JSON.stringify(bad.body));
  const limits = [
    { name: "burst", requests: 2, windowSeconds: 60 },
    { name: "daily", requests: 100, windowSeconds: 86_400 },
  ];
  const key = (await request(h.app).post("/api/api-key/create").set(bearer).send({ label: "ci", limits }))
    .body;
  assert.deepEqual(key.limits, limits);
  assert.equal((await listed(key.id)).lastUsedAt, null);

  const first = await call(key.key);
  assert.equal(first.status, 200, body(first));
  assert.equal(
    first.headers["ratelimit-policy"],
    '"party";q=1000;w=1, "burst";q=2;w=60, "daily";q=100;w=86400',
  );
  assert.match(
    String(first.headers.ratelimit),
    /^"party";r=999;t=1, "burst";r=1;t=60, "daily";r=99;t=86400$/,
  );
  assert.equal((await call(key.key)).status, 200);
  const refused = await call(key.key);
  assert.deepEqual([refused.status, body(refused)], [429, JSON.stringify({ message: "Too many requests" })]);
  assert.equal(refused.headers["gateway-limit"], "burst");
  assert.ok(Number(refused.headers["retry-after"]) >= 59, String(refused.headers["retry-after"]));
  assert.match(String(refused.headers.ratelimit), /"burst";r=0;t=(59|60), "daily";r=97;/);

  // Last use, from the gateway's counters: no Postgres write per request.
  const used = Date.parse((await listed(key.id)).lastUsedAt);
  assert.ok(Date.now() - used < 10_000, String(used));

  // Dropping the limit reaches the gateway within the pub/sub delivery time.
  const set = await request(h.app).post(`/api/api-key/${key.id}/limits`).set(bearer).send({ limits: [] });
  assert.deepEqual(set.body, { id: key.id, limits: [] });
  await eventually(async () => (await call(key.key)).status === 200, { what: "the dropped limit" });
  const fields = await h.redis.hkeys(createRedisKeys(h.config.redisPrefix).gateway.account(partyId));
  assert.deepEqual(
    fields.filter((f) => f.startsWith(`${key.id}:l:`)),
    [],
    "a dropped limit's counters are deleted",
  );
});

test("key spend caps: past the key's daily cap 402 naming it, the key's counters readable, lifted again", async () => {
  const key = (
    await request(h.app)
      .post("/api/api-key/create")
      .set(bearer)
      .send({ spendCaps: { daily: "1", monthly: null } })
  ).body;
  assert.deepEqual(key.spendCaps, { daily: "1", monthly: null });
  const statuses = await Promise.all([call(key.key), call(key.key), call(key.key)]);
  assert.deepEqual(statuses.map((r) => r.status).sort(), [200, 200, 402]);
  const capped = statuses.find((r) => r.status === 402);
  assert.equal(capped?.headers["gateway-limit"], "key-daily");
  assert.equal(body(capped!), JSON.stringify({ message: "Spend cap reached" }));
  const caps = await request(h.app).get(`/api/api-key/${key.id}/spend-caps`).set(bearer);
  assert.deepEqual(caps.body, { daily: "1", monthly: null, spentToday: "1", spentThisMonth: "1" });

  const monthly = await request(h.app)
    .post(`/api/api-key/${key.id}/spend-caps`)
    .set(bearer)
    .send({ daily: null, monthly: "1.5" });
  assert.deepEqual(monthly.body, { daily: null, monthly: "1.5", spentToday: "1", spentThisMonth: "1" });
  await eventually(async () => (await call(key.key)).status === 200, { what: "the raised cap" });
  const past = await call(key.key);
  assert.deepEqual([past.status, past.headers["gateway-limit"]], [402, "key-monthly"]);
  // The party's own cap is unaffected: another key of the party still pays.
  const other = (await request(h.app).post("/api/api-key/create").set(bearer)).body;
  assert.equal((await call(other.key)).status, 200);
  const missing = await request(h.app)
    .get(`/api/api-key/gkid_${"1".repeat(22)}/spend-caps`)
    .set(bearer);
  assert.equal(missing.status, 404, JSON.stringify(missing.body));
});

test("rotation: the new secret works at once, the old one until its grace ends, then 403 KEY_ROTATED; bounds and refusals", async () => {
  const key = (await request(h.app).post("/api/api-key/create").set(bearer).send({ label: "rotating" })).body;
  assert.equal((await call(key.key)).status, 200, "cached by the gateway before the rotation");
  const tooLong = await request(h.app)
    .post(`/api/api-key/${key.id}/rotate`)
    .set(bearer)
    .send({ graceSeconds: 7 * 86_400 + 1 });
  assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
  const rotated = await request(h.app)
    .post(`/api/api-key/${key.id}/rotate`)
    .set(bearer)
    .send({ graceSeconds: 2 });
  assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
  assert.equal(rotated.body.id, key.id, "same key: id, label, limits, caps and usage stay");
  assert.notEqual(rotated.body.key, key.key);
  const deadline = Date.parse(rotated.body.previousKeyExpiresAt);
  assert.equal(deadline - Date.parse(rotated.body.rotatedAt), 2000);
  assert.equal((await call(rotated.body.key)).status, 200, "the new secret");
  assert.equal((await call(key.key)).status, 200, "the old secret within its grace");
  const row = await listed(key.id);
  assert.deepEqual(
    [row.start, row.label, row.previousKeyExpiresAt],
    [rotated.body.start, "rotating", rotated.body.previousKeyExpiresAt],
  );
  // Checked on every request against the cached record, so exact to the millisecond.
  await sleep(Math.max(0, deadline - Date.now()));
  const old = await call(key.key);
  assert.deepEqual(
    [old.status, body(old)],
    [403, JSON.stringify({ message: "API Key was rotated; use its new secret" })],
  );
  assert.equal((await call(rotated.body.key)).status, 200);

  // Rotating again ends the previous grace at once (one previous secret at most); grace 0 refuses at once.
  const again = await request(h.app)
    .post(`/api/api-key/${key.id}/rotate`)
    .set(bearer)
    .send({ graceSeconds: 0 });
  assert.equal(again.status, 200);
  await eventually(async () => (await call(rotated.body.key)).status === 403, {
    what: "the old secret refused",
  });
  assert.equal((await call(key.key)).status, 401, "two rotations ago: unknown");
  assert.equal((await call(again.body.key)).status, 200);

  await request(h.app).post(`/api/api-key/${key.id}/deactivate`).set(bearer);
  const inactive = await request(h.app).post(`/api/api-key/${key.id}/rotate`).set(bearer);
  assert.deepEqual([inactive.status, inactive.body], [409, { message: "API key is deactivated or expired" }]);
  const missing = await request(h.app)
    .post(`/api/api-key/gkid_${"1".repeat(22)}/rotate`)
    .set(bearer);
  assert.deepEqual([missing.status, missing.body], [404, { message: "API key not found" }]);

  // Two rotations on record (the refused ones are not), with the secrets' public starts, never the secrets.
  const audit = await h.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.target, key.id), eq(auditLog.action, "gateway_key.rotate")))
    .orderBy(auditLog.id);
  const [user] = await h.db
    .select()
    .from(gatewayUsers)
    .where(eq(gatewayUsers.email, "keys.user@example.com"));
  assert.deepEqual(
    audit.map((a) => [a.actorKind, a.actorId, (a.after as { start: string }).start]),
    [
      ["user", user?.id, rotated.body.start],
      ["user", user?.id, again.body.start],
    ],
  );
  assert.ok(!JSON.stringify(audit.map((a) => a.after)).includes(again.body.key));
});
