import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import path from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import request from "supertest";
import { freePort } from "../faults/ports.ts";
import { uniqueEmail } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { runEntry } from "../helpers/entry.ts";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "..", "..");

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness();
});
after(() => h.close());

async function operator(...args: string[]) {
  const { stdout } = await run(
    process.execPath,
    ["--import", "tsx", "scripts/operator/main.ts", ...args, "--json"],
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

// Issue 25: nobody could read or edit a scope once signed up.
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
