import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import express from "express";
import request from "supertest";
import { z } from "zod";
import { presentStandard } from "../../control-plane/src/errors.ts";
import { assertInScope, createApiKeyAuth } from "../../control-plane/src/http/api-key-auth.ts";
import type { Authenticators } from "../../control-plane/src/http/auth.ts";
import { registerAreas, route } from "../../control-plane/src/http/route.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { createAccountsRepo } from "../../control-plane/src/platform/accounts-repo.ts";
import { basic, makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
let app: express.Express;
before(async () => {
  h = await createControlPlaneHarness();
  // A minimal area declared and registered the way the staking areas are.
  app = express();
  const both = createApiKeyAuth({ keys: createAccountsRepo(h.db), headers: ["x-api-key", "api-key"] });
  const probe = route({
    method: "get",
    path: "/probe/{address}",
    summary: "probe",
    security: "stake-key",
    params: z.object({ address: z.string() }),
    responses: { 200: { description: "ok" } },
    handler: ({ auth, params }) => {
      assertInScope(auth, "ethereum", params.address);
      return { status: 200, body: { organisationId: auth.organisationId } };
    },
  });
  registerAreas(app, [{ tag: "probe", present: presentStandard, routes: [probe] }], {
    authenticators: { "stake-key": both } as unknown as Authenticators,
    json: express.json(),
    logger: createLogger({ level: "silent", service: "test" }),
  });
});
after(() => h.close());

test("accepts either configured header and resolves the organisation", async () => {
  const org = await makeOrganisation(h.db);
  for (const header of ["x-api-key", "api-key"]) {
    const res = await request(app).get("/probe/0xabc").set(header, org.apiKey);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.organisationId, org.id);
  }
});

test("401 for a missing, unknown or revoked key", async () => {
  const org = await makeOrganisation(h.db);
  assert.equal((await request(app).get("/probe/0x1")).body.code, "MISSING_API_KEY");
  const unknown = await request(app).get("/probe/0x1").set("api-key", "stk_nothing");
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.code, "INVALID_API_KEY");
  await createAccountsRepo(h.db).revokeKey(org.keyId);
  const revoked = await request(app).get("/probe/0x1").set("api-key", org.apiKey);
  assert.equal(revoked.status, 401, "a revoked key stops working at once");
});

test("a key revoked through DELETE /user/api-keys stops working on the next request", async () => {
  const org = await makeOrganisation(h.db);
  assert.equal((await request(app).get("/probe/0x1").set("api-key", org.apiKey)).status, 200);
  const del = await request(h.app)
    .delete(`/user/api-keys/${org.keyId}`)
    .set("authorization", basic(org.email, org.password));
  assert.equal(del.status, 204);
  assert.equal((await request(app).get("/probe/0x1").set("api-key", org.apiKey)).status, 401);
});

test("403 for an organisation that is not approved", async () => {
  const org = await makeOrganisation(h.db, { status: "suspended" });
  const res = await request(app).get("/probe/0x1").set("api-key", org.apiKey);
  assert.equal(res.status, 403);
  assert.equal(res.body.code, "ORGANISATION_NOT_APPROVED");
});

test("403 for an address outside a non-empty scope; empty scope is unrestricted", async () => {
  const scoped = await makeOrganisation(h.db, {
    scope: { ethereum: { validator_addresses: [], delegator_addresses: ["0xAbC"] } },
  });
  assert.equal((await request(app).get("/probe/0xabc").set("api-key", scoped.apiKey)).status, 200);
  const out = await request(app).get("/probe/0xdef").set("api-key", scoped.apiKey);
  assert.equal(out.status, 403);
  assert.equal(out.body.code, "ADDRESS_NOT_IN_SCOPE");
  const open = await makeOrganisation(h.db, {
    scope: { ethereum: { validator_addresses: [], delegator_addresses: [] } },
  });
  assert.equal((await request(app).get("/probe/0xdef").set("api-key", open.apiKey)).status, 200);
});

// `x-api-key` on the Hyperliquid or Ethereum areas answered MISSING_API_KEY.
test("every staking area accepts both api-key and x-api-key", async () => {
  const org = await makeOrganisation(h.db);
  // One route per area, called without its input: past authentication it can only answer 400.
  const probes: [string, "get" | "post", string][] = [
    ["hyperliquid delegation", "get", "/api/v1/staking/balance"],
    ["beacon-chain data", "get", "/api/rewards/epoch"],
    ["beacon-chain provisioning", "get", "/api/validators/provisions?page=x"],
    ["stake-account", "post", "/api/v1/balance"],
    ["chain B", "post", "/api/pending-rewards"],
    ["chain C", "post", "/api/rewards"],
  ];
  for (const [area, method, path] of probes) {
    const none = await request(h.app)[method](path);
    assert.equal(none.status, 401, `${area} without a key: ${JSON.stringify(none.body)}`);
    for (const header of ["api-key", "x-api-key"]) {
      const res = await request(h.app)[method](path).set(header, org.apiKey).send({});
      assert.equal(res.status, 400, `${area} with ${header}: ${JSON.stringify(res.body)}`);
    }
  }
});
