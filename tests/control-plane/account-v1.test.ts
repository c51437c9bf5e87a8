import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiKeys, organisations } from "@stake/db/schema/accounts";
import { eq } from "drizzle-orm";
import request from "supertest";
import { makeOrganisation, uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "account-v2,account-v1" });
});
after(() => h.close());

const register = (body: unknown) =>
  request(h.app)
    .post("/api/public/register")
    .send(body as object);
const validBody = () => ({
  orgName: "Acme",
  email: uniqueEmail("v1"),
  password: "longenough",
  allowedAddresses: { ethereum: ["0x00000000219ab540356cBB839Cbe05303d7705Fa"], solana: [] },
});

describe("happy", () => {
  test("register answers 200 {success, pendingUser, message}", async () => {
    const body = validBody();
    const res = await register(body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.equal(typeof res.body.message, "string");
    const u = res.body.pendingUser;
    assert.deepEqual(Object.keys(u).sort(), ["allowedAddresses", "createdAt", "email", "id", "orgName"]);
    assert.equal(u.orgName, "Acme");
    assert.equal(u.email, body.email);
    assert.deepEqual(u.allowedAddresses, body.allowedAddresses);
    assert.match(u.id, /^org_/);
    assert.ok(!Number.isNaN(Date.parse(u.createdAt)));
    const [row] = await h.db.select().from(organisations).where(eq(organisations.id, u.id));
    assert.equal(row?.status, "pending");
    assert.equal(row?.signedUpVia, "v1");
  });

  test("generate-api-key issues a new key and revokes the previous one at once", async () => {
    const org = await makeOrganisation(h.db);
    const res = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", org.apiKey);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.success, true);
    assert.match(res.body.apiKey, /^stk_/);
    const reuse = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", org.apiKey);
    assert.equal(reuse.status, 401);
    assert.deepEqual(reuse.body, {
      success: false,
      code: "INVALID_API_KEY",
      message: "Invalid or revoked API key",
    });
    const next = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", res.body.apiKey);
    assert.equal(next.status, 200);
    const active =
      await h.sql`select count(*)::int as n from api_keys where organisation_id = ${org.id} and revoked_at is null`;
    assert.equal(active[0]!.n, 1);
  });

  test("concurrent rotations with one key: exactly one wins", async () => {
    const org = await makeOrganisation(h.db);
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        request(h.app).post("/api/public/generate-api-key").set("x-api-key", org.apiKey),
      ),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.status === 401));
    const keys = await h.db.select().from(apiKeys).where(eq(apiKeys.organisationId, org.id));
    assert.equal(keys.filter((k) => !k.revokedAt).length, 1);
  });
});

describe("errors: {success:false, code, message}", () => {
  test("409 on a duplicate e-mail, also across v1 and v2", async () => {
    const body = validBody();
    assert.equal((await register(body)).status, 200);
    const dup = await register(body);
    assert.equal(dup.status, 409);
    assert.deepEqual(dup.body, {
      success: false,
      code: "USER_EXISTS",
      message: "An account with this e-mail already exists",
    });
    const v2 = await request(h.app)
      .post("/user/signup")
      .send({ email: body.email, password: "Sup3rSecret", org: "x", scope: {} });
    assert.equal(v2.status, 409);
  });

  const invalid: Array<[string, Record<string, unknown>]> = [
    ["orgName missing", { orgName: undefined }],
    ["email invalid", { email: "nope" }],
    ["password missing", { password: undefined }],
    ["password short", { password: "short" }],
    ["allowedAddresses missing", { allowedAddresses: undefined }],
    ["allowedAddresses unknown chain", { allowedAddresses: { dogecoin: ["D1"] } }],
    ["allowedAddresses not arrays", { allowedAddresses: { ethereum: "0x1" } }],
  ];
  for (const [name, patch] of invalid) {
    test(`400 VALIDATION_ERROR: ${name}`, async () => {
      const res = await register({ ...validBody(), ...patch });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.success, false);
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.equal(typeof res.body.message, "string");
      assert.deepEqual(Object.keys(res.body).sort(), ["code", "message", "success"]);
    });
  }

  test("400 INVALID_JSON in the v1 body", async () => {
    const res = await request(h.app)
      .post("/api/public/register")
      .set("content-type", "application/json")
      .send("{");
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, {
      success: false,
      code: "INVALID_JSON",
      message: "Request body is not valid JSON",
    });
  });

  test("401 without or with an unknown x-api-key; 403 for an organisation not approved", async () => {
    const none = await request(h.app).post("/api/public/generate-api-key");
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "MISSING_API_KEY");
    const unknown = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", "stk_unknown");
    assert.equal(unknown.status, 401);
    const pending = await makeOrganisation(h.db, { status: "pending" });
    const res = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", pending.apiKey);
    assert.equal(res.status, 403);
    assert.equal(res.body.code, "ORGANISATION_NOT_APPROVED");
  });
});
