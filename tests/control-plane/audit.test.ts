import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRedisKeys } from "@stake/db/redis/keys";
import request from "supertest";
import { listAudit } from "../../control-plane/src/platform/audit.ts";
import { auditCommands } from "../../scripts/operator/audit.ts";
import type { OperatorContext } from "../../scripts/operator/context.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { operatorContext } from "../helpers/operator.ts";

// The audit log: one row per audited change, in the change's transaction; append-only.
let h: ControlPlaneHarness;
let ctx: OperatorContext;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "gateway-account" });
  ctx = operatorContext({ db: h.db, redis: h.redis, keys: createRedisKeys(h.config.redisPrefix) });
});
after(() => h.close());

const rows = (target: string) => listAudit(h.db, { target, limit: 100 });
/** The `i`th newest row of `target` (there must be one). */
async function nth(target: string, i = 0) {
  const row = (await rows(target))[i];
  assert.ok(row, `audit row ${i} of ${target}`);
  return {
    ...row,
    before: row.before as Record<string, unknown> | null,
    after: row.after as Record<string, unknown>,
  };
}
const actions = async (target: string) => (await rows(target)).map((r) => r.action).reverse();

test("each audited action writes one row, with who, what and before/after", async () => {
  // A user's own key: created and deactivated through the account API.
  const email = "audit-user@example.test";
  const password = "Sup3rSecret";
  await request(h.app).post("/api/onboarding/signup").send({ email, password }).expect(201);
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password }).expect(200);
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  await request(h.app).post("/api/party/create").set(bearer).expect(201);
  const key = await request(h.app).post("/api/api-key/create").set(bearer).send({ label: "ci" }).expect(201);
  const created = await nth(key.body.id);
  assert.deepEqual(
    [created.action, created.actorKind, created.after.label],
    ["gateway_key.create", "user", "ci"],
  );
  assert.ok(created.actorId, "the user is the actor");
  assert.ok(!JSON.stringify(created.after).includes(key.body.key), "never the secret");
  for (let i = 0; i < 2; i++)
    await request(h.app).post(`/api/api-key/${key.body.id}/deactivate`).set(bearer).expect(200);
  assert.deepEqual(await actions(key.body.id), ["gateway_key.create", "gateway_key.deactivate"]);

  // Operator: providers (the origin's host only: a URL may carry the provider's own key), the rate.
  const g = ctx.gateway;
  await g.addProvider({ key: "rpc", originUrl: "http://127.0.0.1:9/v1/secret-token", costInUsd: "0.001" });
  assert.equal(await g.addProvider({ key: "rpc", originUrl: "http://127.0.0.1:9", costInUsd: "1" }), null);
  await g.updateProvider("rpc", { costInUsd: "0.002" });
  const [update, create] = [await nth("rpc", 0), await nth("rpc", 1)];
  assert.deepEqual([create.action, update.action], ["provider.create", "provider.update"]);
  assert.deepEqual([update.before?.costInUsd, update.after.costInUsd], ["0.0010000000", "0.0020000000"]);
  assert.equal(update.after.origin, "127.0.0.1:9");
  assert.ok(!JSON.stringify([create.after, update.before, update.after]).includes("secret-token"));
  await g.setCoinRate("0.5");
  await g.setCoinRate("0.25");
  const [second, first] = [await nth("coin_rate", 0), await nth("coin_rate", 1)];
  assert.deepEqual(first.before, null);
  assert.deepEqual(
    [second.before, second.after],
    [{ usdPerCoin: "0.500000000000" }, { usdPerCoin: "0.250000000000" }],
  );

  // Funding: once per ref, a re-run finds the credit and writes nothing more.
  const acct = await g.openAccount({ email: "funded@example.test" });
  const partyId = acct.partyId as string;
  await g.fundParty({ partyId, amount: 5n, ref: "audit-fund-1" });
  await g.fundParty({ partyId, amount: 5n, ref: "audit-fund-1" });
  const funds = (await rows(partyId)).filter((r) => r.action === "party.fund");
  assert.deepEqual(
    funds.map((r) => [r.actorKind, { ...(r.after as object), entryId: "-" }]),
    [["operator", { entryId: "-", amount: "5", ref: "audit-fund-1" }]],
  );
  // openAccount again: the old key deactivated and a new one created, by the operator.
  const again = await g.openAccount({ email: "funded@example.test" });
  assert.deepEqual(await actions(acct.keyId), ["gateway_key.create", "gateway_key.deactivate"]);
  assert.deepEqual(await actions(again.keyId), ["gateway_key.create"]);
  assert.equal((await rows(again.keyId))[0]?.actorKind, "operator");

  // Organisation approval; setting the status it already has is no change.
  const org = await makeOrganisation(h.db, { status: "pending" });
  await ctx.accounts.setOrganisationStatus(org.email, "approved");
  await ctx.accounts.setOrganisationStatus(org.email, "approved");
  const [approval, ...more] = await rows(org.id);
  assert.equal(more.length, 0);
  assert.deepEqual(
    [approval?.action, approval?.before, approval?.after],
    ["organisation.status", { status: "pending" }, { status: "approved" }],
  );

  // The operator CLI reads it back, newest first, filtered.
  const list = auditCommands["audit list"];
  assert.ok(list);
  const listed = await list.run(ctx, {
    positionals: [],
    flags: { target: "coin_rate", since: "1h", limit: "1" },
  });
  assert.deepEqual(
    (listed.data as { action: string; after: unknown }[]).map((r) => [r.action, r.after]),
    [["coin_rate.set", { usdPerCoin: "0.250000000000" }]],
  );
  await assert.rejects(list.run(ctx, { positionals: [], flags: { limit: "0" } }), /--limit/);
  await assert.rejects(list.run(ctx, { positionals: [], flags: { since: "yesterday" } }), /--since/);
});

test("a failed change writes no row, and a refused row undoes the change", async () => {
  const g = ctx.gateway;
  const acct = await g.openAccount({ email: "conflict@example.test" });
  const partyId = acct.partyId as string;
  await g.fundParty({ partyId, amount: 7n, ref: "audit-conflict" });
  const before = (await rows(partyId)).length;
  // The same ref for another amount is refused: neither a credit nor an audit row.
  await assert.rejects(g.fundParty({ partyId, amount: 8n, ref: "audit-conflict" }), /already used/);
  assert.equal((await rows(partyId)).length, before);
  await assert.rejects(g.updateProvider("nope", { costInUsd: "abc" }));
  assert.equal((await rows("nope")).length, 0);

  // Same transaction: when Postgres refuses the audit row, the rate it records is not set either.
  await g.setCoinRate("2");
  await h.sql`alter table audit_log add constraint no_rates check (action <> 'coin_rate.set') not valid`;
  try {
    await assert.rejects(g.setCoinRate("3"), /Failed query: insert into "audit_log"/);
  } finally {
    await h.sql`alter table audit_log drop constraint no_rates`;
  }
  assert.equal((await g.currentCoinRate())?.usdPerCoin, "2.000000000000");
});

test("the table is append-only: Postgres refuses UPDATE, DELETE and TRUNCATE", async () => {
  await ctx.gateway.setCoinRate("1");
  for (const statement of [
    h.sql`update audit_log set target = 'x'`,
    h.sql`delete from audit_log`,
    h.sql`truncate audit_log`,
  ])
    await assert.rejects(statement, /append-only/);
  assert.ok((await rows("coin_rate")).length > 0);
});
