import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiKeys, organisations } from "@stake/db/schema/accounts";
import { eq } from "drizzle-orm";
import request from "supertest";
import { basic, makeOrganisation, STRONG_PASSWORD, uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "account-v2" });
});
after(() => h.close());

const signup = (body: unknown) =>
  request(h.app)
    .post("/user/signup")
    .send(body as object);
const validBody = () => ({ email: uniqueEmail(), password: STRONG_PASSWORD, org: "Acme", scope: {} });
const show = (res: request.Response) => JSON.stringify(res.body);
const EVM = `0x${"ab".repeat(20)}`;
const BLS = "cd".repeat(48);
const SOLANA = "Vote111111111111111111111111111111111111111";
const SUI = `0x${"ef".repeat(32)}`;

describe("happy", () => {
  test("sign-up answers 202 {message} and leaves the organisation pending", async () => {
    const body = {
      ...validBody(),
      scope: { ethereum: { validator_addresses: [], delegator_addresses: [EVM] } },
    };
    const res = await signup(body);
    assert.equal(res.status, 202, show(res));
    assert.deepEqual(Object.keys(res.body), ["message"]);
    const [row] = await h.db.select().from(organisations).where(eq(organisations.email, body.email));
    assert.equal(row?.status, "pending");
    assert.deepEqual(row?.scope, body.scope);
  });

  test("create, list and revoke keys", async () => {
    const org = await makeOrganisation(h.db);
    const auth = basic(org.email, org.password);
    const created = await request(h.app)
      .post("/user/api-keys")
      .set("authorization", auth)
      .send({ label: "ci" });
    assert.equal(created.status, 201, show(created));
    assert.deepEqual(Object.keys(created.body).sort(), ["apiKey", "keyId", "label"]);
    assert.equal(created.body.label, "ci");
    assert.match(created.body.keyId, /^key_[1-9A-HJ-NP-Za-km-z]{16,22}$/);

    const listed = await request(h.app).get("/user/api-keys").set("authorization", auth);
    assert.equal(listed.status, 201, show(listed));
    const mine = listed.body.keys.find((k: { keyId: string }) => k.keyId === created.body.keyId);
    assert.deepEqual(Object.keys(mine).sort(), ["createdAt", "keyId", "label"]);
    assert.match(mine.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(!JSON.stringify(listed.body).includes(created.body.apiKey), "the list never shows a secret");

    const deleted = await request(h.app)
      .delete(`/user/api-keys/${created.body.keyId}`)
      .set("authorization", auth);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, "");
    const after = await request(h.app).get("/user/api-keys").set("authorization", auth);
    assert.ok(!after.body.keys.some((k: { keyId: string }) => k.keyId === created.body.keyId));
  });
});

// "0xabc" was accepted, and no request of that chain could ever be in scope again.
describe("scope addresses are checked per chain at sign-up", () => {
  const entry = (list: "validator_addresses" | "delegator_addresses", address: string) => ({
    validator_addresses: list === "validator_addresses" ? [address] : [],
    delegator_addresses: list === "delegator_addresses" ? [address] : [],
  });
  const refused: [string, "validator_addresses" | "delegator_addresses", string, RegExp][] = [
    ["ethereum", "delegator_addresses", "0xabc", /0x address/],
    ["ethereum", "validator_addresses", EVM, /BLS public key/],
    ["hyperliquid", "delegator_addresses", "0xabc", /0x address/],
    ["polygon", "delegator_addresses", SUI, /0x address/],
    ["solana", "delegator_addresses", EVM, /Solana address/],
    ["sui", "delegator_addresses", EVM, /Sui address/],
    // A mixed-case address with a wrong EIP-55 checksum is a typo.
    ["ethereum", "delegator_addresses", `0x${"aB".repeat(20)}`, /checksummed/],
  ];
  for (const [chain, list, address, message] of refused) {
    test(`400 VALIDATION_ERROR: ${chain} ${list} ${address.slice(0, 12)}…`, async () => {
      const res = await signup({ ...validBody(), scope: { [chain]: entry(list, address) } });
      assert.equal(res.status, 400, show(res));
      assert.equal(res.body.details[0].field, `scope.${chain}.${list}.0`, show(res));
      assert.match(res.body.details[0].message, message);
    });
  }

  test("each chain's own addresses are accepted; a BLS pubkey is stored as 0x and lower case", async () => {
    const body = {
      ...validBody(),
      scope: {
        ethereum: { validator_addresses: [BLS.toUpperCase()], delegator_addresses: [EVM] },
        hyperliquid: entry("delegator_addresses", EVM),
        polygon: entry("delegator_addresses", EVM.toUpperCase().replace("0X", "0x")),
        solana: { validator_addresses: [SOLANA], delegator_addresses: [SOLANA] },
        sui: entry("delegator_addresses", SUI),
        bitcoin: entry("delegator_addresses", "bc1qexample"),
      },
    };
    const res = await signup(body);
    assert.equal(res.status, 202, show(res));
    const [row] = await h.db.select().from(organisations).where(eq(organisations.email, body.email));
    assert.deepEqual(row?.scope, {
      ...body.scope,
      ethereum: { validator_addresses: [`0x${BLS}`], delegator_addresses: [EVM] },
    });
  });

  test("GET /user/organisation shows the caller's own organisation, scope included", async () => {
    const scope = { sui: entry("delegator_addresses", SUI) };
    const org = await makeOrganisation(h.db, { scope });
    await makeOrganisation(h.db, { scope: { sui: entry("delegator_addresses", `0x${"01".repeat(32)}`) } });
    const res = await request(h.app)
      .get("/user/organisation")
      .set("authorization", basic(org.email, org.password));
    assert.equal(res.status, 200, show(res));
    assert.deepEqual(
      { ...res.body, createdAt: typeof res.body.createdAt },
      { id: org.id, org: res.body.org, email: org.email, status: "approved", scope, createdAt: "string" },
    );
    assert.equal((await request(h.app).get("/user/organisation")).status, 401);
  });
});

describe("errors: the spec's account-v2 table, row by row", () => {
  test("400 INVALID_JSON", async () => {
    const res = await request(h.app)
      .post("/user/signup")
      .set("content-type", "application/json")
      .send("{nope");
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, { error: "Request body is not valid JSON", code: "INVALID_JSON" });
  });

  const invalid: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["email not valid", { email: "not-an-email" }, "email", /valid e-mail/],
    ["password shorter than 8", { password: "Ab1" }, "password", /at least 8/],
    ["password without lowercase", { password: "ABCDEFG1" }, "password", /lowercase/],
    ["password without uppercase", { password: "abcdefg1" }, "password", /uppercase/],
    ["password without digit", { password: "Abcdefgh" }, "password", /digit/],
    ["org missing", { org: undefined }, "org", /^Required$/],
    ["scope missing", { scope: undefined }, "scope", /^Required$/],
    ["scope wrong shape", { scope: { ethereum: ["0x1"] } }, "scope.ethereum", /object/i],
    // A misspelt chain would leave the intended chain unrestricted (scope fails open): refused.
    [
      "scope names an unknown chain",
      { scope: { solanna: { validator_addresses: [], delegator_addresses: ["So1"] } } },
      "scope.solanna",
      /Unknown chain; use one of ethereum, solana/,
    ],
    [
      "scope list not strings",
      { scope: { ethereum: { validator_addresses: [1], delegator_addresses: [] } } },
      "scope.ethereum.validator_addresses.0",
      /string/,
    ],
  ];
  for (const [name, patch, field, message] of invalid) {
    test(`400 VALIDATION_ERROR: ${name}`, async () => {
      const res = await signup({ ...validBody(), ...patch });
      assert.equal(res.status, 400, show(res));
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.equal(typeof res.body.error, "string");
      const detail = res.body.details.find((d: { field: string }) => d.field === field);
      assert.ok(detail, `a detail for ${field}: ${show(res)}`);
      assert.match(detail.message, message);
    });
  }

  test("400 VALIDATION_ERROR: every missing field reads Required", async () => {
    const res = await signup({});
    assert.equal(res.status, 400);
    assert.deepEqual(
      res.body.details.map((d: { field: string; message: string }) => [d.field, d.message]).sort(),
      [
        ["email", "Required"],
        ["org", "Required"],
        ["password", "Required"],
        ["scope", "Required"],
      ],
    );
  });

  test("400 VALIDATION_ERROR: label missing, label too long, keyId malformed", async () => {
    const org = await makeOrganisation(h.db);
    const auth = basic(org.email, org.password);
    const missing = await request(h.app).post("/user/api-keys").set("authorization", auth).send({});
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.details, [{ field: "label", message: "Required" }]);
    const long = await request(h.app)
      .post("/user/api-keys")
      .set("authorization", auth)
      .send({ label: "x".repeat(65) });
    assert.equal(long.status, 400);
    assert.equal(long.body.details[0].field, "label");
    const ok64 = await request(h.app)
      .post("/user/api-keys")
      .set("authorization", auth)
      .send({ label: "x".repeat(64) });
    assert.equal(ok64.status, 201);
    const malformed = await request(h.app).delete("/user/api-keys/not-a-key").set("authorization", auth);
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, "VALIDATION_ERROR");
    assert.equal(malformed.body.details[0].field, "keyId");
  });

  test("401 MISSING_BASIC_AUTH, INVALID_BASIC_AUTH, INVALID_CREDENTIALS", async () => {
    const org = await makeOrganisation(h.db);
    for (const [method, path] of [
      ["post", "/user/api-keys"],
      ["get", "/user/api-keys"],
      ["delete", `/user/api-keys/${org.keyId}`],
    ] as const) {
      const none = await request(h.app)[method](path).send({ label: "x" });
      assert.equal(none.status, 401);
      assert.deepEqual(none.body, {
        error: "Missing Basic authorization header",
        code: "MISSING_BASIC_AUTH",
      });
      for (const bad of [
        "Bearer abc",
        "Basic",
        "Basic !!!",
        `Basic ${Buffer.from("no-colon").toString("base64")}`,
      ]) {
        const res = await request(h.app)[method](path).set("authorization", bad).send({ label: "x" });
        assert.equal(res.status, 401, `${bad}: ${show(res)}`);
        assert.equal(res.body.code, "INVALID_BASIC_AUTH");
      }
      const wrong = await request(h.app)
        [method](path)
        .set("authorization", basic(org.email, "Wrong-passw0rd"));
      assert.equal(wrong.status, 401);
      assert.deepEqual(wrong.body, { error: "Invalid e-mail or password", code: "INVALID_CREDENTIALS" });
      const unknown = await request(h.app)
        [method](path)
        .set("authorization", basic(uniqueEmail(), "Wrong-passw0rd"));
      assert.deepEqual(unknown.body, wrong.body, "unknown e-mail and wrong password are indistinguishable");
    }
  });

  test("404 API_KEY_NOT_FOUND: missing key, another organisation's key, already revoked", async () => {
    const mine = await makeOrganisation(h.db);
    const theirs = await makeOrganisation(h.db);
    const auth = basic(mine.email, mine.password);
    for (const keyId of ["key_1111111111111111111111", theirs.keyId]) {
      const res = await request(h.app).delete(`/user/api-keys/${keyId}`).set("authorization", auth);
      assert.equal(res.status, 404, show(res));
      assert.deepEqual(res.body, { error: "API key not found", code: "API_KEY_NOT_FOUND" });
    }
    assert.equal(
      (await request(h.app).delete(`/user/api-keys/${mine.keyId}`).set("authorization", auth)).status,
      204,
    );
    const again = await request(h.app).delete(`/user/api-keys/${mine.keyId}`).set("authorization", auth);
    assert.equal(again.status, 404);
  });

  test("409 USER_EXISTS, also with different case", async () => {
    const body = validBody();
    assert.equal((await signup(body)).status, 202);
    const res = await signup({ ...body, email: body.email.toUpperCase() });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body, { error: "An account with this e-mail already exists", code: "USER_EXISTS" });
  });

  test("403 with its own code for pending, rejected and suspended organisations", async () => {
    for (const [status, code] of [
      ["pending", "ORGANISATION_PENDING"],
      ["rejected", "ORGANISATION_REJECTED"],
      ["suspended", "ORGANISATION_SUSPENDED"],
    ] as const) {
      const org = await makeOrganisation(h.db, { status });
      const res = await request(h.app)
        .get("/user/api-keys")
        .set("authorization", basic(org.email, org.password));
      assert.equal(res.status, 403, show(res));
      assert.equal(res.body.code, code);
    }
  });
});

describe("security", () => {
  test("passwords are stored only as argon2id, keys only as SHA-256 hashes", async () => {
    const body = validBody();
    await signup(body);
    const [org] = await h.db.select().from(organisations).where(eq(organisations.email, body.email));
    assert.match(org!.passwordHash, /^\$argon2id\$v=19\$/);
    assert.ok(!JSON.stringify(org).includes(body.password));

    const approved = await makeOrganisation(h.db);
    const res = await request(h.app)
      .post("/user/api-keys")
      .set("authorization", basic(approved.email, approved.password))
      .send({ label: "x" });
    const rows = await h.sql`select * from api_keys where id = ${res.body.keyId}`;
    const stored = JSON.stringify(rows);
    assert.ok(!stored.includes(res.body.apiKey), "the raw key is not in the table");
    assert.match(String(rows[0]!.hash), /^[0-9a-f]{64}$/);
    const [key] = await h.db.select().from(apiKeys).where(eq(apiKeys.id, res.body.keyId));
    assert.equal(key!.start, res.body.apiKey.slice(0, 10));
  });

  test("20 concurrent sign-ups with one e-mail: exactly one 202, the rest 409", async () => {
    const body = validBody();
    const results = await Promise.all(Array.from({ length: 20 }, () => signup(body)));
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [202, ...Array(19).fill(409)]);
    const rows = await h.db.select().from(organisations).where(eq(organisations.email, body.email));
    assert.equal(rows.length, 1);
  });
});
