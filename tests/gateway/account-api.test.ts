import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { coinsToBaseUnits } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { scanKeys } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { coinRates, gatewayApiKeys, providers } from "@stake/db/schema/index";
import { SignJWT } from "jose";
import { Webhook } from "standardwebhooks";
import request from "supertest";
import { creditParty, readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import {
  runSettlementPass,
  settlePartyOnce,
} from "../../control-plane/src/features/gateway-settlement/pass.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually, sleep } from "../helpers/eventually.ts";
import { startGateway } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startJobs } from "../helpers/jobs.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

// The gateway account API end to end: sign up, log in, create a party and a key, fund, pay for a request
// through a real gateway on the same Postgres and Redis, see balance and reservations, deactivate the key.
let h: ControlPlaneHarness;
let gateway: Awaited<ReturnType<typeof startGateway>>;
const upstream = createServer((_req, res) => res.end("paid response"));

let jobs: Awaited<ReturnType<typeof startJobs>>;
const closeAfter: (() => Promise<void>)[] = [];
before(async () => {
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "gateway-account,gateway-settlement,webhooks",
    GATEWAY_ACCOUNT_RATE_LIMIT: "150",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
    WEBHOOK_POLL_INTERVAL_MS: "50",
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  gateway = await startGateway(h.config);
  // The worker's drain of a party's reservation log (GET /api/reservations waits for it).
  jobs = await startJobs(h, [QUEUES.reservationDrain.name, "webhook-delivery"]);
});
after(async () => {
  for (const close of closeAfter) await close();
  await jobs.close();
  await gateway.close();
  upstream.close();
  await h.close();
});

const email = "Gw.User@Example.com";
const password = "Sup3rSecret";

test("a gateway key id minted with the former gwk_ prefix still names its key", async () => {
  const user = await request(h.app)
    .post("/api/onboarding/signup")
    .send({ email: "former.prefix@example.com", password });
  const login = await request(h.app)
    .post("/api/onboarding/login")
    .send({ email: "former.prefix@example.com", password });
  const formerId = newId("gatewayKey").replace(/^gkid_/, "gwk_");
  await h.db
    .insert(gatewayApiKeys)
    .values({ id: formerId, userId: user.body.userId, hash: "h".repeat(64), start: "gwk_abc" });
  const off = await request(h.app)
    .post(`/api/api-key/${formerId}/deactivate`)
    .set({ Authorization: `Bearer ${login.body.token}` });
  assert.deepEqual(
    [off.status, off.body.id, off.body.active],
    [200, formerId, false],
    JSON.stringify(off.body),
  );
});

test("signup, login, party, key, funding, a paid request, balance, reservations, deactivation", async () => {
  const signup = await request(h.app).post("/api/onboarding/signup").send({ email, password });
  assert.equal(signup.status, 201);
  // Sign-up signs in: its token works like log-in's.
  assert.equal(signup.body.tokenType, "Bearer", JSON.stringify(signup.body));
  const signedIn = await request(h.app).get("/api/party").set("Authorization", `Bearer ${signup.body.token}`);
  assert.deepEqual([signedIn.status, signedIn.body], [200, { party: null }]);
  assert.equal((await request(h.app).post("/api/onboarding/signup").send({ email, password })).status, 409);

  const bad = await request(h.app).post("/api/onboarding/login").send({ email, password: "nope" });
  assert.deepEqual([bad.status, bad.body], [401, { message: "Unauthorized" }]);
  const login = await request(h.app)
    .post("/api/onboarding/login")
    .send({ email: email.toLowerCase(), password });
  assert.equal(login.status, 200);
  const bearer = { Authorization: `Bearer ${login.body.token}` };

  const noParty = await request(h.app).get("/api/balance").set(bearer);
  assert.deepEqual([noParty.status, noParty.body], [403, { message: "User does not have a party" }]);

  const none = await request(h.app).get("/api/party").set(bearer);
  assert.deepEqual([none.status, none.body], [200, { party: null }]);
  const party = await request(h.app).post("/api/party/create").set(bearer);
  assert.equal(party.status, 201);
  const read = await request(h.app).get("/api/party").set(bearer);
  assert.deepEqual([read.status, read.body], [200, { party: party.body }]);
  const again = await request(h.app).post("/api/party/create").set(bearer);
  assert.deepEqual([again.status, again.body], [409, { message: "Party already exists" }]);
  const partyId: string = party.body.partyId;

  const key = await request(h.app).post("/api/api-key/create").set(bearer);
  assert.equal(key.status, 201);
  assert.match(key.body.key, /^gwk_/);
  // Ids shared the secrets' `gwk_` prefix; an id has its own.
  assert.match(key.body.id, /^gkid_/);
  const [stored] = await h.sql`select hash, start from gateway_api_keys where id = ${key.body.id}`;
  assert.notEqual(stored?.hash, key.body.key, "only the hash is stored");
  const listed = await request(h.app).get("/api/api-key/list").set(bearer);
  assert.deepEqual(listed.body, {
    keys: [
      {
        id: key.body.id,
        start: key.body.start,
        label: null,
        active: true,
        expiresAt: null,
        createdAt: key.body.createdAt,
        deactivatedAt: null,
        limits: [],
        spendCaps: { daily: null, monthly: null },
        lastUsedAt: null,
        rotatedAt: null,
        previousKeyExpiresAt: null,
      },
    ],
  });
  assert.ok(!JSON.stringify(listed.body).includes(key.body.key), "the secret is never listed");

  // Operator side: provider, rate, funding (twice with the same ref credits once).
  const keys = createRedisKeys(h.config.redisPrefix);
  const port = (upstream.address() as AddressInfo).port;
  await h.db
    .insert(providers)
    .values({ id: newId("provider"), key: "demo", originUrl: `http://127.0.0.1:${port}`, costInUsd: "0.25" });
  await h.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: "0.5" });
  await h.db.insert(providers).values({
    id: newId("provider"),
    key: "off",
    originUrl: "http://127.0.0.1:9",
    costInUsd: "1",
    status: "disabled",
  });
  const callable = await request(h.app).get("/api/providers").set(bearer);
  assert.deepEqual(callable.body, { providers: [{ key: "demo", costInUSD: "0.25", status: "active" }] });
  for (let i = 0; i < 2; i++) {
    await creditParty(h.db, h.redis, keys, { partyId, amount: coinsToBaseUnits("10"), ref: "fund-1" });
  }
  const paid = await send(`${gateway.url}/gateway/demo/hello`, {
    headers: ["x-gateway-api-key", key.body.key, "idempotency-key", "first"],
  });
  assert.equal(paid.status, 200);
  assert.equal(paid.body.toString(), "paid response");

  const balance = await request(h.app).get("/api/balance").set(bearer);
  assert.deepEqual(balance.body, { balance: "10", reservedBalance: "0.5" });

  const list = await request(h.app).get("/api/reservations?page=1&pageSize=10").set(bearer);
  assert.equal(list.status, 200);
  assert.equal(list.body.total, 1);
  assert.equal(list.body.reservations[0].status, "registered");
  assert.equal(list.body.reservations[0].idempotencyKey, "first");
  assert.equal(list.body.reservations[0].costInUSD, 0.25);
  assert.equal(list.body.reservations[0].cost, "0.5");

  // Postgres is the record: once the Redis record is gone (its idempotency window passed), it is still listed.
  for (const k of await scanKeys(h.redis, keys.gateway.reservation(partyId, "*"))) await h.redis.del(k);
  const later = await request(h.app).get("/api/reservations?page=1&pageSize=10").set(bearer);
  assert.equal(later.body.total, 1);
  assert.equal(later.body.reservations[0].idempotencyKey, "first");

  const off = await request(h.app).post(`/api/api-key/${key.body.id}/deactivate`).set(bearer);
  assert.equal(off.status, 200);
  const after = (await request(h.app).get("/api/api-key/list").set(bearer)).body.keys[0];
  assert.deepEqual([after.active, after.deactivatedAt], [false, off.body.deactivatedAt]);
  // Deactivating again answered a new deactivatedAt; it answers the first one.
  const offAgain = await request(h.app).post(`/api/api-key/${key.body.id}/deactivate`).set(bearer);
  assert.deepEqual([offAgain.status, offAgain.body], [200, off.body]);
  const deadline = Date.now() + 1000;
  let refused = await send(`${gateway.url}/gateway/demo/hello`, {
    headers: ["x-gateway-api-key", key.body.key, "idempotency-key", "second"],
  });
  while (refused.status === 200 && Date.now() < deadline) {
    refused = await send(`${gateway.url}/gateway/demo/hello`, {
      headers: ["x-gateway-api-key", key.body.key, "idempotency-key", `s${Date.now()}`],
    });
  }
  assert.deepEqual(
    [refused.status, refused.body.toString()],
    [403, JSON.stringify({ message: "API Key is no longer active" })],
  );
});

test("bearer errors: Unauthorized without a token, Invalid token for a forged or mis-addressed one", async () => {
  const none = await request(h.app).get("/api/balance");
  assert.deepEqual([none.status, none.body], [401, { message: "Unauthorized" }]);
  const garbage = await request(h.app).get("/api/balance").set("Authorization", "Bearer abc.def.ghi");
  assert.deepEqual([garbage.status, garbage.body], [401, { message: "Invalid token" }]);
  const secret = new TextEncoder().encode(h.config.gatewayAccount.jwtSecret);
  const wrongAud = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("gwu_x")
    .setIssuer("stake-gateway-account")
    .setAudience("other")
    .setExpirationTime("5m")
    .sign(secret);
  const res = await request(h.app).get("/api/balance").set("Authorization", `Bearer ${wrongAud}`);
  assert.deepEqual([res.status, res.body], [401, { message: "Invalid token" }]);
  assert.deepEqual((await request(h.app).get("/api/health")).body, { status: "ok" });
});

test("fix: a valid token naming a user that does not exist gets 401 Invalid token, not 500", async () => {
  const secret = new TextEncoder().encode(h.config.gatewayAccount.jwtSecret);
  const ghost = await new SignJWT({})
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(newId("gatewayUser"))
    .setIssuer("stake-gateway-account")
    .setAudience("stake-gateway-account-api")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(secret);
  for (const path of ["/api/party/create", "/api/api-key/create"]) {
    const res = await request(h.app).post(path).set("Authorization", `Bearer ${ghost}`);
    assert.deepEqual([res.status, res.body], [401, { message: "Invalid token" }], path);
  }
});

test("usage API: the day range (default the last 7 days) and its validation, the CSV, only the user's own party", async () => {
  const signup = async (who: string) => {
    await request(h.app).post("/api/onboarding/signup").send({ email: who, password });
    const login = await request(h.app).post("/api/onboarding/login").send({ email: who, password });
    return { Authorization: `Bearer ${login.body.token}` };
  };
  const bearer = await signup("usage.user@example.com");
  const partyId: string = (await request(h.app).post("/api/party/create").set(bearer)).body.partyId;
  const key = (await request(h.app).post("/api/api-key/create").set(bearer).send({ label: " usage test " }))
    .body;
  assert.equal(key.label, "usage test", "a label, trimmed");
  const listedKeys = (await request(h.app).get("/api/api-key/list").set(bearer)).body.keys;
  assert.deepEqual(
    listedKeys.map((k: { id: string; label: string }) => [k.id, k.label]),
    [[key.id, "usage test"]],
  );
  const keys = createRedisKeys(h.config.redisPrefix);
  await creditParty(h.db, h.redis, keys, { partyId, amount: coinsToBaseUnits("10"), ref: "usage-fund" });
  for (const idem of ["u1", "u2", "u3"]) {
    const paid = await send(`${gateway.url}/gateway/demo/hello`, {
      headers: ["x-gateway-api-key", key.key, "idempotency-key", idem],
    });
    assert.equal(paid.status, 200);
    assert.equal(paid.headers["gateway-cost"], "0.5");
  }
  // The worker's settlement pass closes them: charged, and in the roll-up.
  await h.redis.sadd(keys.gateway.settleDirty(partyId), partyId);
  await runSettlementPass({ db: h.db, redis: h.redis, keys }, { reapAfterMs: 60_000, ttlSeconds: 172_800 });

  const today = new Date().toISOString().slice(0, 10);
  const usage = await request(h.app).get("/api/usage").set(bearer);
  assert.equal(usage.status, 200, JSON.stringify(usage.body));
  assert.equal(usage.body.to, today);
  assert.equal((Date.parse(usage.body.to) - Date.parse(usage.body.from)) / 86_400_000, 6);
  assert.deepEqual(usage.body.totals, { requests: 3, settled: 3, charged: "1.5", failed: 0, released: "0" });
  assert.deepEqual(
    usage.body.rows.map((r: { day: string; keyId: string; providerKey: string }) => [
      r.day,
      r.keyId,
      r.providerKey,
    ]),
    [[today, key.id, "demo"]],
  );
  const csv = await request(h.app).get(`/api/usage.csv?from=${today}&to=${today}`).set(bearer);
  assert.equal(csv.status, 200);
  assert.match(String(csv.headers["content-type"]), /^text\/csv/);
  const lines = csv.text.split("\r\n");
  assert.match(lines[0] ?? "", /^day,key_id,provider_key,requests,settled,charged,/);
  assert.equal(lines[1]?.split(",").slice(0, 6).join(","), `${today},${key.id},demo,3,3,1.5`);
  assert.equal(lines.length, 3, "header, one row, the final CRLF");

  const backwards = await request(h.app).get("/api/usage?from=2026-02-02&to=2026-02-01").set(bearer);
  assert.equal(backwards.status, 400, JSON.stringify(backwards.body));
  const tooLong = await request(h.app).get("/api/usage?from=2024-01-01&to=2026-01-01").set(bearer);
  assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
  const notADay = await request(h.app).get("/api/usage?from=yesterday").set(bearer);
  assert.equal(notADay.status, 400, JSON.stringify(notADay.body));
  // Regression: year 0000 passed the ISO check and Postgres refused it (500), on the JSON and the CSV route.
  for (const path of ["/api/usage", "/api/usage.csv"]) {
    const yearZero = await request(h.app).get(`${path}?from=0000-01-01&to=0000-01-02`).set(bearer);
    assert.equal(yearZero.status, 400, `${path}: ${JSON.stringify(yearZero.body)}`);
    assert.match(yearZero.body.message, /from/, JSON.stringify(yearZero.body));
  }
  // Another user, with a party of their own, sees none of it.
  const other = await signup("usage.other@example.com");
  await request(h.app).post("/api/party/create").set(other);
  const theirs = await request(h.app).get("/api/usage").set(other);
  assert.deepEqual([theirs.status, theirs.body.rows, theirs.body.totals.requests], [200, [], 0]);
});

test("spend caps: set by the user, enforced across two gateway processes on one Redis (402 with Retry-After), lifted again", async () => {
  const who = "caps.user@example.com";
  await request(h.app).post("/api/onboarding/signup").send({ email: who, password });
  const login = await request(h.app).post("/api/onboarding/login").send({ email: who, password });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const partyId: string = (await request(h.app).post("/api/party/create").set(bearer)).body.partyId;
  const key = (await request(h.app).post("/api/api-key/create").set(bearer)).body.key;
  const keys = createRedisKeys(h.config.redisPrefix);
  await creditParty(h.db, h.redis, keys, { partyId, amount: coinsToBaseUnits("10"), ref: "caps-fund" });

  const zero = await request(h.app)
    .post("/api/party/spend-caps")
    .set(bearer)
    .send({ daily: "0", monthly: null });
  assert.equal(zero.status, 400, JSON.stringify(zero.body));
  // 0.25 USD at 0.5 USD per coin: 0.5 coins a request, so a daily cap of 2 coins pays for 4.
  const set = await request(h.app)
    .post("/api/party/spend-caps")
    .set(bearer)
    .send({ daily: "2", monthly: "100" });
  assert.deepEqual(set.body, { daily: "2", monthly: "100", spentToday: "0", spentThisMonth: "0" });

  const other = await startGateway(h.config);
  try {
    const gateways = [gateway.url, other.url];
    const fire = (n: number, tag: string) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          send(`${gateways[i % 2]}/gateway/demo/hello`, {
            headers: ["x-gateway-api-key", key, "idempotency-key", `${tag}${i}`],
          }),
        ),
      );
    // The key was never used, so neither gateway has its record cached: both read the caps from Postgres.
    const replies = await fire(12, "c");
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 4, JSON.stringify(statuses));
    assert.equal(statuses.filter((s) => s === 402).length, 8, JSON.stringify(statuses));
    const refused = replies.find((r) => r.status === 402);
    assert.equal(refused?.body.toString(), JSON.stringify({ message: "Spend cap reached" }));
    const retryAfter = Number(refused?.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${retryAfter}`);
    const caps = await request(h.app).get("/api/party/spend-caps").set(bearer);
    assert.deepEqual(caps.body, { daily: "2", monthly: "100", spentToday: "2", spentThisMonth: "2" });
    const { reserved } = await readBalance(h.redis, keys, partyId);
    assert.equal(reserved, coinsToBaseUnits("2"), "nothing reserved past the cap");

    await request(h.app).post("/api/party/spend-caps").set(bearer).send({ daily: null, monthly: null });
    await (async () => {
      for (const deadline = Date.now() + 2000; Date.now() < deadline; ) {
        const [again] = await fire(1, `free${Date.now()}-`);
        if (again?.status === 200) return;
      }
      assert.fail("the lifted cap did not reach the gateway");
    })();
  } finally {
    await other.close();
  }
});

test("key expiry: a key works until its expiresAt, then is refused like a deactivated one; a past expiresAt is refused", async () => {
  const who = "expiry.user@example.com";
  await request(h.app).post("/api/onboarding/signup").send({ email: who, password });
  const login = await request(h.app).post("/api/onboarding/login").send({ email: who, password });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const partyId: string = (await request(h.app).post("/api/party/create").set(bearer)).body.partyId;
  const past = await request(h.app)
    .post("/api/api-key/create")
    .set(bearer)
    .send({ expiresAt: new Date(Date.now() - 1000).toISOString() });
  assert.equal(past.status, 400, JSON.stringify(past.body));
  const expiresAt = new Date(Date.now() + 1500).toISOString();
  const key = (await request(h.app).post("/api/api-key/create").set(bearer).send({ expiresAt })).body;
  assert.equal(key.expiresAt, expiresAt);
  await creditParty(h.db, h.redis, createRedisKeys(h.config.redisPrefix), {
    partyId,
    amount: coinsToBaseUnits("10"),
    ref: "expiry-fund",
  });
  const call = (idem: string) =>
    send(`${gateway.url}/gateway/demo/hello`, {
      headers: ["x-gateway-api-key", key.key, "idempotency-key", idem],
    });
  assert.equal((await call("e1")).status, 200, "before its expiry");
  // The gateway has the record cached by now: expiry is still exact, checked on every request.
  await sleep(Math.max(0, Date.parse(expiresAt) - Date.now()));
  const refused = await call("e2");
  assert.deepEqual(
    [refused.status, refused.body.toString()],
    [403, JSON.stringify({ message: "API Key is no longer active" })],
  );
});

// `gateway.balance_low` once per crossing of the user's threshold, in the settlement that
// crossed it; gateway.key_deactivated once per key that stops working, whoever deactivates it.
test("webhooks: gateway.balance_low fires once per crossing at settlement; gateway.key_deactivated once", async () => {
  const who = { email: `low-${Date.now()}@example.com`, password };
  await request(h.app).post("/api/onboarding/signup").send(who);
  const login = await request(h.app).post("/api/onboarding/login").send(who);
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const partyId: string = (await request(h.app).post("/api/party/create").set(bearer)).body.partyId;
  const key = (await request(h.app).post("/api/api-key/create").set(bearer)).body;
  const receiver = await startReceiver();
  closeAfter.push(() => receiver.close());
  const endpoint = await request(h.app).post("/api/webhook/create").set(bearer).send({ url: receiver.url });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const threshold = await request(h.app)
    .post("/api/balance/low-threshold")
    .set(bearer)
    .send({ threshold: "5" });
  assert.deepEqual([threshold.status, threshold.body], [200, { threshold: "5" }]);

  // 1 coin a request (0.5 USD at 0.5 USD a coin), 7 coins funded.
  const keys = createRedisKeys(h.config.redisPrefix);
  const port = (upstream.address() as AddressInfo).port;
  await h.db.insert(providers).values({
    id: newId("provider"),
    key: "lowbal",
    originUrl: `http://127.0.0.1:${port}`,
    costInUsd: "0.5",
  });
  await h.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: "0.5" });
  await creditParty(h.db, h.redis, keys, { partyId, amount: coinsToBaseUnits("7"), ref: `low-${partyId}` });
  const settlement = { db: h.db, redis: h.redis, keys };
  const payAndSettle = async (n: number) => {
    const paid = await send(`${gateway.url}/gateway/lowbal/x`, {
      headers: ["x-gateway-api-key", key.key, "idempotency-key", `low-${n}`],
    });
    assert.equal(paid.status, 200, paid.body.toString());
    await settlePartyOnce(settlement, partyId, { reapAfterMs: 60_000, ttlSeconds: 3600 });
  };
  await payAndSettle(1); // 6
  await payAndSettle(2); // 5: not below 5
  const quiet = await request(h.app).get(`/api/webhook/${endpoint.body.id}/deliveries`).set(bearer);
  assert.equal(quiet.body.total, 0, "no event while the balance is at or above the threshold");
  await payAndSettle(3); // 4: crosses
  await payAndSettle(4); // 3: still below, no second event
  const low = await eventually(() => receiver.of("gateway.balance_low")[0], { what: "gateway.balance_low" });
  const event = new Webhook(endpoint.body.secret).verify(low.body, low.headers as Record<string, string>) as {
    data: { partyId: string; balance: string; threshold: string };
  };
  assert.deepEqual(event.data, { partyId, balance: "4", threshold: "5" });
  // Funding lifts it back over the threshold (seen by the next settlement), and the next fall tells again.
  await creditParty(h.db, h.redis, keys, { partyId, amount: coinsToBaseUnits("3"), ref: `low2-${partyId}` });
  await payAndSettle(5); // 5: back at the threshold, re-armed
  await payAndSettle(6); // 4: crosses again
  await eventually(() => receiver.of("gateway.balance_low").length === 2, { what: "the second crossing" });
  assert.deepEqual(
    receiver.of("gateway.balance_low").map((r) => JSON.parse(r.body).data.balance),
    ["4", "4"],
  );

  const off = await request(h.app).post(`/api/api-key/${key.id}/deactivate`).set(bearer);
  assert.equal(off.status, 200);
  await request(h.app).post(`/api/api-key/${key.id}/deactivate`).set(bearer);
  const told = await eventually(() => receiver.of("gateway.key_deactivated")[0], {
    what: "gateway.key_deactivated",
  });
  assert.deepEqual(JSON.parse(told.body).data, {
    keyId: key.id,
    start: key.start,
    deactivatedAt: off.body.deactivatedAt,
  });
  const deliveries = await request(h.app).get(`/api/webhook/${endpoint.body.id}/deliveries`).set(bearer);
  assert.equal(deliveries.body.total, 3, "two balance_low and one key_deactivated, nothing twice");
});

// Last: it spends the client's request budget.
test("429 past the per-client request limit", async () => {
  let last = 0;
  for (let i = 0; i < h.config.gatewayAccount.rateLimit + 5 && last !== 429; i++)
    last = (await request(h.app).get("/api/health")).status;
  assert.equal(last, 429);
  const res = await request(h.app).get("/api/health");
  assert.deepEqual(res.body, { message: "Too many requests" });
});
