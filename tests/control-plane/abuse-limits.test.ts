import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { basic, makeOrganisation, STRONG_PASSWORD, uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({
    AUTH_FAILURE_LIMIT_PER_EMAIL: "3",
    AUTH_FAILURE_LIMIT_PER_IP: "50",
    SIGNUP_LIMIT_PER_IP: "5",
    SIGNUP_LIMIT_PER_EMAIL: "30",
  });
});
after(() => h.close());

test("failed Basic-auth attempts per e-mail: 429 with Retry-After, even for the right password", async () => {
  const org = await makeOrganisation(h.db);
  for (let i = 0; i < 3; i++) {
    const res = await request(h.app)
      .get("/user/api-keys")
      .set("authorization", basic(org.email, "Wrong-pass1"));
    assert.equal(res.status, 401);
  }
  const blocked = await request(h.app)
    .get("/user/api-keys")
    .set("authorization", basic(org.email, org.password));
  assert.equal(blocked.status, 429, JSON.stringify(blocked.body));
  assert.equal(blocked.body.code, "RATE_LIMITED");
  assert.ok(Number(blocked.headers["retry-after"]) >= 1);
  const other = await makeOrganisation(h.db);
  const fine = await request(h.app)
    .get("/user/api-keys")
    .set("authorization", basic(other.email, other.password));
  assert.equal(fine.status, 201, "another e-mail from the same address is not blocked");
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
