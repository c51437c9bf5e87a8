import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import request from "supertest";
import { basic, makeOrganisation, STRONG_PASSWORD, uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "account-v2,gateway-account",
    AUTH_FAILURE_LIMIT_PER_EMAIL: "3",
    AUTH_FAILURE_LIMIT_PER_IP: "50",
    SIGNUP_LIMIT_PER_IP: "5",
    SIGNUP_LIMIT_PER_EMAIL: "30",
  });
});
after(() => h.close());

const keys = (org: { email: string }, password: string, ip: string) =>
  request(h.app)
    .get("/user/api-keys")
    .set("x-forwarded-for", ip)
    .set("authorization", basic(org.email, password));

test("failed passwords slow one (address, e-mail) pair down progressively; nobody is locked out", async () => {
  const org = await makeOrganisation(h.db);
  const attacker = "203.0.113.10";
  for (let i = 0; i < 3; i++) assert.equal((await keys(org, "Wrong-pass1", attacker)).status, 401);
  const held = await keys(org, org.password, attacker);
  assert.equal(held.status, 429, JSON.stringify(held.body));
  assert.equal(held.body.code, "RATE_LIMITED");
  assert.equal(held.headers["retry-after"], "1", "the first delay is a second");
  const owner = await keys(org, org.password, "198.51.100.20");
  assert.equal(owner.status, 201, "the right password from another address is not held up");
  await sleep(1100);
  assert.equal((await keys(org, "Wrong-pass1", attacker)).status, 401, "after the delay, one more try");
  assert.equal((await keys(org, org.password, attacker)).headers["retry-after"], "2", "then 2 s, 4 s, …");
  await sleep(2100);
  assert.equal((await keys(org, org.password, attacker)).status, 201, "the right password after the wait");
  assert.equal((await keys(org, "Wrong-pass1", attacker)).status, 401, "a success starts the count again");
});

test("a concurrent burst of guesses cannot slip past the count", async () => {
  const org = await makeOrganisation(h.db);
  const burst = await Promise.all(Array.from({ length: 20 }, () => keys(org, "Wrong-pass1", "203.0.113.11")));
  const verified = burst.filter((r) => r.status === 401).length;
  assert.ok(verified <= 3, `${verified} passwords were checked; at most the 3 free attempts may be`);
  assert.ok(burst.every((r) => r.status === 401 || r.status === 429));
});

test("gateway login is slowed the same way per (address, e-mail)", async () => {
  const email = uniqueEmail("gw");
  assert.equal(
    (await request(h.app).post("/api/onboarding/signup").send({ email, password: STRONG_PASSWORD })).status,
    201,
  );
  const login = (password: string, ip: string) =>
    request(h.app).post("/api/onboarding/login").set("x-forwarded-for", ip).send({ email, password });
  for (let i = 0; i < 3; i++) assert.equal((await login("Wrong-pass1", "203.0.113.12")).status, 401);
  const held = await login(STRONG_PASSWORD, "203.0.113.12");
  assert.equal(held.status, 429);
  assert.match(held.body.message, /retry in 1 s/);
  assert.equal((await login(STRONG_PASSWORD, "198.51.100.21")).status, 200);
});

test("sign-ups per client address: 429 with Retry-After past the limit", async () => {
  const statuses: number[] = [];
  let last: request.Response | undefined;
  for (let i = 0; i < 6; i++) {
    last = await request(h.app)
      .post("/user/signup")
      .set("x-forwarded-for", "203.0.113.7")
      .send({ email: uniqueEmail(), password: STRONG_PASSWORD, org: "x", scope: {} });
    statuses.push(last.status);
  }
  assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429]);
  assert.ok(Number(last!.headers["retry-after"]) >= 1);
});

test("regression: IPv6 sign-ups are counted per /64, so rotating addresses within one prefix does not reset the limit", async () => {
  const statuses: number[] = [];
  for (let i = 1; i <= 6; i++) {
    const res = await request(h.app)
      .post("/user/signup")
      .set("x-forwarded-for", `2001:db8:5:6::${i.toString(16)}`)
      .send({ email: uniqueEmail(), password: STRONG_PASSWORD, org: "x", scope: {} });
    statuses.push(res.status);
  }
  assert.deepEqual(statuses, [202, 202, 202, 202, 202, 429]);
  const otherPrefix = await request(h.app)
    .post("/user/signup")
    .set("x-forwarded-for", "2001:db8:5:7::1")
    .send({ email: uniqueEmail(), password: STRONG_PASSWORD, org: "x", scope: {} });
  assert.equal(otherPrefix.status, 202, "another /64 has its own count");
});
