import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { coinsToBaseUnits } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { createRedisKeys } from "@stake/db/redis/keys";
import { RESERVATION_PATH_MAX } from "@stake/db/redis/scripts";
import { coinRates, providers } from "@stake/db/schema/index";
import request from "supertest";
import { creditParty } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startGateway } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startJobs } from "../helpers/jobs.ts";

// The account API's reads behind the dashboard's views: funding history, the coin rate, the
// low-balance threshold, and the request log (key, path, status, latency) of requests through a real gateway.
let h: ControlPlaneHarness;
let gateway: Awaited<ReturnType<typeof startGateway>>;
let jobs: Awaited<ReturnType<typeof startJobs>>;
// The provider answers 404 for /missing, so the log holds a failed request beside a paid one.
const upstream = createServer((req, res) => {
  res.statusCode = req.url?.startsWith("/missing") ? 404 : 200;
  res.end("answer");
});
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "gateway-account,gateway-settlement" });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  gateway = await startGateway(h.config);
  jobs = await startJobs(h, [QUEUES.reservationDrain.name]);
});
after(async () => {
  await jobs.close();
  await gateway.close();
  upstream.close();
  await h.close();
});

/** A user with a party and a key, logged in. */
async function user(email: string) {
  await request(h.app).post("/api/onboarding/signup").send({ email, password: "Sup3rSecret" });
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password: "Sup3rSecret" });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const party = await request(h.app).post("/api/party/create").set(bearer);
  const key = await request(h.app).post("/api/api-key/create").set(bearer).send({ label: "ci" });
  return { bearer, partyId: party.body.partyId as string, key: key.body as { id: string; key: string } };
}

test("coin rate: null before the operator sets one, then the newest rate, exact", async () => {
  const { bearer } = await user("rate@example.com");
  const none = await request(h.app).get("/api/coin-rate").set(bearer);
  assert.deepEqual([none.status, none.body], [200, { rate: null }]);
  await h.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: "0.123456789012" });
  const set = await request(h.app).get("/api/coin-rate").set(bearer);
  assert.equal(set.body.rate.usdPerCoin, "0.123456789012");
  assert.ok(Date.parse(set.body.rate.since) <= Date.now());
  const anonymous = await request(h.app).get("/api/coin-rate");
  assert.equal(anonymous.status, 401);
});

test("funding history: the party's credits with their reference, newest first, paginated, its own only", async () => {
  const keys = createRedisKeys(h.config.redisPrefix);
  const a = await user("funded@example.com");
  const b = await user("other@example.com");
  await creditParty(h.db, h.redis, keys, {
    partyId: a.partyId,
    amount: coinsToBaseUnits("10"),
    ref: "wire-1",
  });
  await creditParty(h.db, h.redis, keys, {
    partyId: a.partyId,
    amount: coinsToBaseUnits("0.0000000001"),
    ref: "wire-2",
  });
  await creditParty(h.db, h.redis, keys, {
    partyId: b.partyId,
    amount: coinsToBaseUnits("5"),
    ref: "b-wire",
  });

  // Two pages of one: together both credits, newest first (two credits may share a millisecond).
  const pages = [];
  for (const page of [1, 2]) {
    const res = await request(h.app).get(`/api/funding?page=${page}&pageSize=1`).set(a.bearer);
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.total, res.body.page, res.body.pageSize], [2, page, 1]);
    pages.push(...res.body.credits);
  }
  assert.deepEqual(pages.map((c) => [c.reference, c.amount]).sort(), [
    ["wire-1", "10"],
    ["wire-2", "0.0000000001"],
  ]);
  assert.ok(Date.parse(pages[0].createdAt) >= Date.parse(pages[1].createdAt), "newest first");
  assert.ok(
    pages.every((c) => c.appliedAt),
    "applied to the Redis balance",
  );
  const others = await request(h.app).get("/api/funding").set(b.bearer);
  assert.deepEqual(
    others.body.credits.map((c: { reference: string }) => c.reference),
    ["b-wire"],
  );
  const bad = await request(h.app).get("/api/funding?pageSize=101").set(a.bearer);
  assert.equal(bad.status, 400);

  await request(h.app)
    .post("/api/onboarding/signup")
    .send({ email: "noparty@example.com", password: "Sup3rSecret" });
  const login = await request(h.app)
    .post("/api/onboarding/login")
    .send({ email: "noparty@example.com", password: "Sup3rSecret" });
  const noParty = await request(h.app)
    .get("/api/funding")
    .set({ Authorization: `Bearer ${login.body.token}` });
  assert.deepEqual([noParty.status, noParty.body], [403, { message: "User does not have a party" }]);
});

test("low-balance threshold reads back as set", async () => {
  const { bearer } = await user("threshold@example.com");
  assert.deepEqual((await request(h.app).get("/api/balance/low-threshold").set(bearer)).body, {
    threshold: null,
  });
  await request(h.app).post("/api/balance/low-threshold").set(bearer).send({ threshold: "2.5" });
  assert.deepEqual((await request(h.app).get("/api/balance/low-threshold").set(bearer)).body, {
    threshold: "2.5",
  });
});

test("request log: key, path without its query, HTTP status and latency of each request", async () => {
  const port = (upstream.address() as AddressInfo).port;
  await h.db.insert(providers).values({
    id: newId("provider"),
    key: "logged",
    originUrl: `http://127.0.0.1:${port}`,
    costInUsd: "0.25",
  });
  await h.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: "0.5" });
  const keys = createRedisKeys(h.config.redisPrefix);
  const a = await user("log@example.com");
  await creditParty(h.db, h.redis, keys, {
    partyId: a.partyId,
    amount: coinsToBaseUnits("10"),
    ref: "log-fund",
  });
  const call = (path: string, idem: string) =>
    send(`${gateway.url}/gateway/logged${path}`, {
      headers: ["x-gateway-api-key", a.key.key, "idempotency-key", idem],
    });
  assert.equal((await call("/v1/blocks?token=secret", "ok")).status, 200);
  assert.equal((await call("/missing", "nf")).status, 404);
  const long = `/${"a".repeat(RESERVATION_PATH_MAX + 50)}`;
  assert.equal((await call(long, "long")).status, 200);

  const log = await request(h.app).get("/api/reservations?pageSize=10").set(a.bearer);
  assert.equal(log.status, 200);
  const rows = log.body.reservations as {
    idempotencyKey: string;
    keyId: string;
    path: string;
    httpStatus: number;
    upstreamMs: number;
    status: string;
    cost: string;
  }[];
  const by = Object.fromEntries(rows.map((r) => [r.idempotencyKey, r]));
  assert.deepEqual(
    [by.ok?.keyId, by.ok?.path, by.ok?.httpStatus, by.ok?.status, by.ok?.cost],
    [a.key.id, "/v1/blocks", 200, "registered", "0.5"],
  );
  assert.deepEqual([by.nf?.path, by.nf?.httpStatus, by.nf?.status], ["/missing", 404, "failed"]);
  assert.equal(by.long?.path, long.slice(0, RESERVATION_PATH_MAX));
  for (const r of rows) assert.ok(Number.isInteger(r.upstreamMs) && r.upstreamMs >= 0, JSON.stringify(r));
  assert.ok(!JSON.stringify(log.body).includes("secret"), "the query is not kept");

  const other = await user("log-other@example.com");
  const theirs = await request(h.app).get("/api/reservations").set(other.bearer);
  assert.equal(theirs.body.total, 0, "another party's user sees none of them");
});
