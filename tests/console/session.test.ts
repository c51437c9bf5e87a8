import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { SESSIONS_PER_ORGANISATION } from "../../control-plane/src/features/console/sessions.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { seedEthereum } from "../statements/seed.ts";

// The console's session over the real control plane: what signs in, what the token may do (the
// organisation's own data, its keys), and that sign-out, a suspension and the per-organisation cap end it.
let h: ControlPlaneHarness;
let org: TestOrganisation;
let other: TestOrganisation;

before(async () => {
  h = await createControlPlaneHarness();
  [org, other] = await Promise.all([makeOrganisation(h.db), makeOrganisation(h.db)]);
  await seedEthereum(h, 3, [org.id, org.id, other.id]);
});
after(() => h.close());

const signIn = (email: string, password: string) =>
  request(h.app).post("/console/session").send({ email, password });
const bearer = (token: string) => `Bearer ${token}`;

test("sign-in: the right password gives a 30-minute token; a wrong one, an unknown e-mail and a pending organisation do not", async () => {
  const ok = await signIn(org.email.toUpperCase(), org.password);
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  assert.match(ok.body.token, /^cs_[A-Za-z0-9_-]{43}$/);
  assert.equal(ok.headers["cache-control"], "no-store");
  const life = Date.parse(ok.body.expiresAt) - Date.now();
  assert.ok(life > 29 * 60_000 && life <= 30 * 60_000, `${life} ms`);
  assert.equal(ok.body.organisationId, org.id);

  const wrong = await signIn(org.email, "Wr0ngPassword");
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.code, "INVALID_CREDENTIALS");
  assert.equal((await signIn("nobody@example.com", org.password)).body.code, "INVALID_CREDENTIALS");
  const pending = await makeOrganisation(h.db, { status: "pending" });
  assert.equal((await signIn(pending.email, pending.password)).body.code, "ORGANISATION_PENDING");
  // Redis holds the token's hash, never the token.
  const keys = await h.redis.keys(`${h.config.redisPrefix}console:session:*`);
  assert.ok(keys.length >= 1);
  for (const k of keys) assert.ok(!k.includes(ok.body.token.slice(3)));
});

test("sign-in failures are slowed down per address and e-mail (429 with Retry-After before any password check)", async () => {
  const target = await makeOrganisation(h.db);
  let limited: request.Response | undefined;
  for (let i = 0; i < 20 && !limited; i++) {
    const res = await signIn(target.email, `Wr0ngPassword${i}`);
    if (res.status === 429) limited = res;
    else assert.equal(res.status, 401);
  }
  assert.ok(limited, "failures were never slowed down");
  assert.ok(Number(limited.headers["retry-after"]) >= 1);
  // Told to wait: even the right password is not checked now.
  assert.equal((await signIn(target.email, target.password)).status, 429);
});

test("the token stands for the organisation in the staking areas and /user: its own data only", async () => {
  const { token } = (await signIn(org.email, org.password)).body;
  const list = await request(h.app).get("/api/validators/list").set("authorization", bearer(token));
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.equal(list.body.total, 2, "the organisation's two validators, not the other's");
  const byKey = await request(h.app).get("/api/validators/list").set("api-key", org.apiKey);
  assert.deepEqual(list.body.results, byKey.body.results, "the same answer as the organisation's API key");
  const statement = await request(h.app)
    .get("/api/statements")
    .query({ month: "2026-10", chain: "ethereum", per_page: "100" })
    .set("authorization", bearer(token));
  assert.equal(statement.status, 200);
  assert.deepEqual(new Set(statement.body.results.map((r: { account: string }) => r.account)).size, 2);

  const me = await request(h.app).get("/user/organisation").set("authorization", bearer(token));
  assert.equal(me.body.id, org.id);
  const created = await request(h.app)
    .post("/user/api-keys")
    .set("authorization", bearer(token))
    .send({ label: "from-console" });
  assert.equal(created.status, 201);
  const keys = await request(h.app).get("/user/api-keys").set("authorization", bearer(token));
  assert.ok(keys.body.keys.some((k: { label: string }) => k.label === "from-console"));
  // Another organisation's key id is not this session's to revoke.
  const foreign = await request(h.app)
    .delete(`/user/api-keys/${other.keyId}`)
    .set("authorization", bearer(token));
  assert.equal(foreign.status, 404);
});

test("sign-out, a forged token and a suspension end the session's use at once", async () => {
  const { token } = (await signIn(org.email, org.password)).body;
  const forged = `cs_${"A".repeat(43)}`;
  const refused = await request(h.app).get("/api/validators/list").set("authorization", bearer(forged));
  assert.equal(refused.status, 401);
  assert.equal(refused.body.code, "INVALID_SESSION");

  assert.equal(
    (await request(h.app).delete("/console/session").set("authorization", bearer(token))).status,
    204,
  );
  const after = await request(h.app).get("/user/organisation").set("authorization", bearer(token));
  assert.equal(after.status, 401);
  assert.equal(after.body.code, "INVALID_SESSION");

  const suspended = await makeOrganisation(h.db);
  const live = (await signIn(suspended.email, suspended.password)).body.token;
  await h.sql`update organisations set status = 'suspended' where id = ${suspended.id}`;
  const gone = await request(h.app).get("/api/validators/list").set("authorization", bearer(live));
  assert.equal(gone.status, 403);
  assert.equal(gone.body.code, "ORGANISATION_NOT_APPROVED");
});

test(`an organisation holds at most ${SESSIONS_PER_ORGANISATION} sessions: a new one ends the oldest`, async () => {
  const many = await makeOrganisation(h.db);
  const tokens: string[] = [];
  for (let i = 0; i <= SESSIONS_PER_ORGANISATION; i++)
    tokens.push((await signIn(many.email, many.password)).body.token);
  const status = async (t: string) =>
    (await request(h.app).get("/user/organisation").set("authorization", bearer(t))).status;
  assert.equal(await status(tokens[0]!), 401, "the oldest session ended");
  for (const t of tokens.slice(1)) assert.equal(await status(t), 200);
});
