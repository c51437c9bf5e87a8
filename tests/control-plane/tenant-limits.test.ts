import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { basic, makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

// No per-key limit on the data areas, no cap on active keys per organisation or gateway
// user, 1,000 stake accounts per balance request, no provisioning quota.
let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({
    API_KEY_REQUESTS_PER_MINUTE: "3",
    API_KEYS_PER_ORGANISATION: "2",
    GATEWAY_KEYS_PER_USER: "1",
    ETH_PROVISION_QUOTA: "3",
  });
});
after(() => h.close());

test("every API-key area is limited per key: 429 with Retry-After and the IETF RateLimit fields", async () => {
  const org = await makeOrganisation(h.db);
  // A refused body still costs the key a request: the limit is taken before the input is read.
  const ask = (key: string) => request(h.app).post("/api/pending-rewards").set("x-api-key", key).send({});
  const first = await ask(org.apiKey);
  assert.equal(first.status, 400, JSON.stringify(first.body));
  assert.equal(first.headers["ratelimit-policy"], '"api-key";q=3;w=60');
  assert.match(first.headers.ratelimit ?? "", /^"api-key";r=2;t=\d+$/);
  await ask(org.apiKey);
  await ask(org.apiKey);
  const limited = await ask(org.apiKey);
  assert.equal(limited.status, 429, JSON.stringify(limited.body));
  assert.equal(limited.body.code, "RATE_LIMITED");
  assert.ok(Number(limited.headers["retry-after"]) >= 1);
  assert.match(limited.headers.ratelimit ?? "", /^"api-key";r=0;t=\d+$/);
  // The same budget covers the other areas' keys' requests (here: beacon-chain data, header api-key).
  const beacon = await request(h.app).get("/api/validators/count").set("api-key", org.apiKey);
  assert.equal(beacon.status, 429, JSON.stringify(beacon.body));
  const other = await makeOrganisation(h.db);
  assert.equal((await ask(other.apiKey)).status, 400);
});

test("an organisation holds at most API_KEYS_PER_ORGANISATION active keys: one more is 409", async () => {
  const org = await makeOrganisation(h.db);
  const create = () =>
    request(h.app)
      .post("/user/api-keys")
      .set("Authorization", basic(org.email, org.password))
      .send({ label: "more" });
  assert.equal((await create()).status, 201);
  const refused = await create();
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.equal(refused.body.code, "API_KEY_LIMIT_REACHED");
  const revoked = await request(h.app)
    .delete(`/user/api-keys/${org.keyId}`)
    .set("Authorization", basic(org.email, org.password));
  assert.ok(revoked.status < 300, JSON.stringify(revoked.body));
  assert.equal((await create()).status, 201, "a revoked key frees its place");
});

test("a gateway user holds at most GATEWAY_KEYS_PER_USER active keys: one more is 409", async () => {
  const email = `gw-${process.pid}-${Date.now()}@example.com`;
  const password = "Sup3rSecret";
  assert.equal((await request(h.app).post("/api/onboarding/signup").send({ email, password })).status, 201);
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  assert.equal((await request(h.app).post("/api/party/create").set(bearer)).status, 201);
  const first = await request(h.app).post("/api/api-key/create").set(bearer);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const refused = await request(h.app).post("/api/api-key/create").set(bearer);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.message, /active API keys/);
});

test("/api/v1/balance refuses more than 100 stake accounts before any node call", async () => {
  const org = await makeOrganisation(h.db);
  const res = await request(h.app)
    .post("/api/v1/balance")
    .set("x-api-key", org.apiKey)
    .send({ stakeAccountPubKeys: Array(101).fill("Stake11111111111111111111111111111111111111") });
  assert.equal(res.status, 400, JSON.stringify(res.body));
});

test("an organisation may hold at most ETH_PROVISION_QUOTA validators not yet deposited", async () => {
  const org = await makeOrganisation(h.db);
  const provision = (validatorsCount: number, idempotencyKey: string) =>
    request(h.app)
      .post("/api/provision")
      .set("api-key", org.apiKey)
      .set("Idempotency-Key", idempotencyKey)
      .send({
        attributes: {
          withdrawalAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
          validatorsCount,
          batch: false,
        },
      });
  const first = await provision(2, "first");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const refused = await provision(2, "second");
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(JSON.stringify(refused.body), /PROVISION_QUOTA_EXCEEDED|not yet deposited/);
  // A replay of the accepted one is still answered.
  assert.equal((await provision(2, "first")).status, 200);
});
