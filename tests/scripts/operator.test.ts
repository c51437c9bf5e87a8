import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { createGatewayOperatorService } from "@stake/control-plane/operator";
import { createRedisKeys } from "@stake/db/redis/keys";
import request from "supertest";
import { createAccountsRepo } from "../../control-plane/src/platform/accounts-repo.ts";
import { createLedger, NO_PARTY_LIMITS } from "../../gateway/src/billing/ledger.ts";
import { freePort } from "../../scripts/lib/ports.ts";
import { entryCommand } from "../../scripts/lib/processes.ts";
import { uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { runEntry } from "../helpers/entry.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..", "..");

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "account-v2,account-v1,gateway-account" });
});
after(() => h.close());

async function operator(...args: string[]) {
  const { stdout } = await run(
    process.execPath,
    [...entryCommand("scripts/operator/main.ts"), ...args, "--json"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: h.config.databaseUrl,
        REDIS_URL: h.config.redisUrl,
        REDIS_PREFIX: h.config.redisPrefix,
      },
    },
  );
  return JSON.parse(stdout);
}

test("sign-up → orgs list → approve → keys issue → the key works → keys revoke → it stops working", async () => {
  const email = uniqueEmail("cli");
  await request(h.app)
    .post("/user/signup")
    .send({ email, password: "Sup3rSecret", org: "CLI Org", scope: {} })
    .expect(202);

  const pending = await operator("orgs", "list", "--status", "pending");
  assert.ok(pending.some((o: { email: string }) => o.email === email));

  const approved = await operator("orgs", "approve", email);
  assert.equal(approved.status, "approved");

  const issued = await operator("keys", "issue", email, "--label", "first");
  assert.match(issued.apiKey, /^stk_/);
  assert.equal(issued.label, "first");

  const rotate = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", issued.apiKey);
  assert.equal(rotate.status, 200, "the issued key authenticates");

  const listed = await request(h.app).get("/user/api-keys").auth(email, "Sup3rSecret");
  const current = listed.body.keys[0].keyId;
  assert.deepEqual(await operator("keys", "revoke", current), { keyId: current, revoked: true });
  const revoked = await request(h.app)
    .post("/api/public/generate-api-key")
    .set("x-api-key", rotate.body.apiKey);
  assert.equal(revoked.status, 401);

  const rejected = await operator("orgs", "reject", email);
  assert.equal(rejected.status, "rejected");
});

test("usage errors exit non-zero with a JSON error", async () => {
  await assert.rejects(
    operator("orgs", "approve", "nobody@example.com"),
    (err: { code: number; stdout: string }) => {
      assert.equal(err.code, 2);
      assert.match(JSON.parse(err.stdout).error, /no organisation/);
      return true;
    },
  );
});

test("a deployment that does not answer is one line naming the service and its address, no stack", async () => {
  const [closed, redisPort] = [await freePort(), await freePort()];
  const r = await runEntry("scripts/operator/main.ts", ["providers", "list"], {
    DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${closed}/staking_demo`,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
  });
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr.trim(),
    `error: cannot connect to Postgres at postgres://postgres:***@127.0.0.1:${closed}/staking_demo (ECONNREFUSED; DATABASE_URL / REDIS_URL or their defaults): is it running?`,
  );
});

// Nobody could read or edit a scope once signed up.
test("orgs scope replaces a scope after checking it; the organisation reads it back", async () => {
  const email = uniqueEmail("scope");
  await request(h.app)
    .post("/user/signup")
    .send({ email, password: "Sup3rSecret", org: "Scope Org", scope: {} })
    .expect(202);
  await operator("orgs", "approve", email);
  const scope = { polygon: { validator_addresses: [], delegator_addresses: [`0x${"12".repeat(20)}`] } };
  const set = await operator("orgs", "scope", email, JSON.stringify(scope));
  assert.deepEqual(set.scope, scope);
  const read = await request(h.app).get("/user/organisation").auth(email, "Sup3rSecret");
  assert.deepEqual(read.body.scope, scope, JSON.stringify(read.body));

  const bad = { polygon: { validator_addresses: [], delegator_addresses: ["0xabc"] } };
  await assert.rejects(
    operator("orgs", "scope", email, JSON.stringify(bad)),
    (err: { code: number; stdout: string }) => {
      assert.equal(err.code, 2);
      assert.match(JSON.parse(err.stdout).error, /^polygon\.delegator_addresses\.0: .*0x address/);
      return true;
    },
  );
  await assert.rejects(operator("orgs", "scope", email, "{nope"), (err: { stdout: string }) =>
    /not JSON/.test(JSON.parse(err.stdout).error),
  );
});

// A misspelt command printed the whole help text; stray flags and arguments were ignored.
test("unknown command, unknown option and extra arguments are named and exit 2", async () => {
  const refused = async (args: string[], message: RegExp) =>
    assert.rejects(operator(...args), (err: { code: number; stdout: string }) => {
      assert.equal(err.code, 2, err.stdout);
      assert.match(JSON.parse(err.stdout).error, message);
      return true;
    });
  await refused(["orgs", "lst"], /^unknown command: orgs lst; "orgs" takes: orgs list, /);
  await refused(["fnd"], /^unknown command: fnd; --help lists the commands$/);
  await refused(["keys", "issue", "a@example.com", "--lable", "x"], /^unknown option --lable$/);
  await refused(["rate", "set", "0.1", "0.2"], /^unexpected argument 0\.2$/);
  await refused(["gateway-keys", "list", "--user"], /^--user needs a value$/);
});

test("rate show, users list, parties list and gateway-keys list read what the gateway account API made", async () => {
  assert.equal(await operator("rate", "show"), null);
  await operator("rate", "set", "0.25");
  assert.equal((await operator("rate", "show")).usdPerCoin, "0.250000000000");
  const email = uniqueEmail("gw");
  await request(h.app).post("/api/onboarding/signup").send({ email, password: "Sup3rSecret" }).expect(201);
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password: "Sup3rSecret" });
  const bearer = `Bearer ${login.body.token}`;
  const party = await request(h.app).post("/api/party/create").set("authorization", bearer).expect(201);
  const key = await request(h.app)
    .post("/api/api-key/create")
    .set("authorization", bearer)
    .send({ label: "billing job" })
    .expect(201);
  await request(h.app)
    .post(`/api/api-key/${key.body.id}/spend-caps`)
    .set("authorization", bearer)
    .send({ daily: "5", monthly: null })
    .expect(200);
  await request(h.app)
    .post(`/api/api-key/${key.body.id}/limits`)
    .set("authorization", bearer)
    .send({ limits: [{ name: "burst", requests: 10, windowSeconds: 1 }] })
    .expect(200);
  // One request reserved through the gateway's own ledger: it stamps the key's last use and spend.
  const redisKeys = createRedisKeys(h.config.redisPrefix);
  await createGatewayOperatorService({ db: h.db, redis: h.redis, keys: redisKeys }).fundParty({
    partyId: party.body.partyId,
    amount: 1_000_000_000_000n,
    ref: "op-test",
  });
  const reserved = await createLedger(h.redis, redisKeys, 60, NO_PARTY_LIMITS).reserve({
    partyId: party.body.partyId,
    providerKey: "p",
    idempotencyKey: "op-1",
    costInUsd: "0.25",
    cost: 2_500_000_000n,
    keyId: key.body.id,
  });
  assert.ok(reserved.ok, reserved.ok ? "" : reserved.code);

  const users = await operator("users", "list");
  const user = users.find((u: { email: string }) => u.email === email);
  assert.equal(user.partyId, party.body.partyId, JSON.stringify(users));
  const parties = await operator("parties", "list");
  assert.deepEqual(
    parties.find((p: { email: string }) => p.email === email),
    { partyId: party.body.partyId, userId: user.id, email, balance: "100", reserved: "0.25" },
  );
  const keys = await operator("gateway-keys", "list", "--user", email);
  assert.equal(keys.length, 1, JSON.stringify(keys));
  assert.equal(keys[0].id, key.body.id, JSON.stringify({ keys, created: key.body }));
  assert.equal(keys[0].active, true);
  assert.equal(keys[0].label, "billing job");
  assert.equal(keys[0].partyId, party.body.partyId);
  assert.deepEqual(keys[0].spendCaps, { daily: "5", monthly: null });
  assert.deepEqual(keys[0].limits, [{ name: "burst", requests: 10, windowSeconds: 1 }]);
  assert.equal(keys[0].spentToday, "0.25");
  assert.ok(Math.abs(Date.parse(keys[0].lastUsedAt) - Date.now()) < 60_000, keys[0].lastUsedAt);
  assert.ok(!JSON.stringify(keys).includes(key.body.key), "never the secret");
  assert.deepEqual(await operator("gateway-keys", "list", "--user", "gwu_nobody"), []);
  await assert.rejects(
    operator("gateway-keys", "list", "--user", "nobody@example.com"),
    (err: { stdout: string }) => /no gateway user/.test(JSON.parse(err.stdout).error),
  );
});

test("regression: sign-up refuses control characters in a name, and the CLI never prints one raw", async () => {
  const hostile = "Evil\u001b]0;pwned\u0007\u001b[31mRed\u009b2J";
  const refused = await request(h.app)
    .post("/user/signup")
    .send({ email: uniqueEmail("ctl"), password: "Sup3rSecret", org: hostile, scope: {} });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.code, "VALIDATION_ERROR");
  // A row written before sign-up refused them.
  const email = uniqueEmail("ctl-old");
  await createAccountsRepo(h.db).insertOrganisation({
    orgName: hostile,
    email,
    passwordHash: "-",
    scope: {},
    signedUpVia: "v2",
  });
  const env = {
    ...process.env,
    DATABASE_URL: h.config.databaseUrl,
    REDIS_URL: h.config.redisUrl,
    REDIS_PREFIX: h.config.redisPrefix,
  };
  for (const json of [false, true]) {
    const { stdout } = await run(
      process.execPath,
      [...entryCommand("scripts/operator/main.ts"), "orgs", "list", ...(json ? ["--json"] : [])],
      { cwd: ROOT, env },
    );
    assert.ok(stdout.includes(email), stdout);
    assert.doesNotMatch(
      stdout,
      // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the test
      /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/,
      `raw control character (json: ${json})`,
    );
    assert.ok(stdout.includes(json ? "\\u001b]0;pwned\\u0007" : "\\x1b]0;pwned\\x07"), stdout);
  }
});
