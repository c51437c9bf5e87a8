import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { ROLES } from "../../devnet/polygon/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type PolygonEnv, startPolygonEnv } from "./setup.ts";

/** The spec sample's stake_account_address: 39 hex digits (docs/chains/polygon-sui.md §0). */
const SPEC_SAMPLE = "0xcf6Ace29C8Ed34d8233eA9B6B8ae059D2Eaa445";
const [d0, d1] = ROLES.delegators;

describe("Polygon pending rewards: bad input is a clear 4xx in the area's error format", () => {
  let env: PolygonEnv;
  const post = (body: unknown, key = env.key) =>
    request(env.h.app)
      .post("/api/pending-rewards")
      .set("x-api-key", key)
      .send(body as object);

  before(async () => {
    env = await startPolygonEnv({ days: 2 });
  });
  after(async () => env?.close());

  const cases: [string, unknown][] = [
    ["the spec's sample address (39 hex digits)", { stake_account_address: SPEC_SAMPLE }],
    ["41 hex digits", { stake_account_address: `${d0}a` }],
    ["no 0x", { stake_account_address: d0.slice(2) }],
    ["not hex", { stake_account_address: `0x${"zz".repeat(20)}` }],
    ["a Sui address (32 bytes)", { stake_account_address: `0x${"ab".repeat(32)}` }],
    ["a number", { stake_account_address: 12345 }],
    ["missing", {}],
    ["null", { stake_account_address: null }],
  ];
  for (const [name, body] of cases) {
    it(`${name} → 400 VALIDATION_ERROR on stake_account_address`, async () => {
      const res = await post(body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.equal(typeof res.body.error, "string");
      assert.deepEqual(
        res.body.details.map((d: { field: string }) => d.field),
        ["stake_account_address"],
      );
    });
  }

  it("whatever JSON body arrives, the answer is 200 or a 400 in the area's format, never a 500", async () => {
    const address = fc.oneof(
      fc.string(),
      fc.stringMatching(/^(0x|0X)?[0-9a-fA-Fg]{38,42}$/),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const bodies = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({ stake_account_address: address }, { requiredKeys: [] }),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (b) => {
        const res = await request(env.h.app)
          .post("/api/pending-rewards")
          .set("x-api-key", env.key)
          .set("content-type", "application/json")
          .send(JSON.stringify(b));
        assert.ok(res.status === 200 || res.status === 400, `${res.status} ${JSON.stringify(res.body)}`);
        if (res.status === 400) assert.equal(typeof res.body.code, "string");
      }),
      { numRuns: 60 },
    );
  });

  it("a body that is not JSON → 400 INVALID_JSON", async () => {
    const res = await request(env.h.app)
      .post("/api/pending-rewards")
      .set("x-api-key", env.key)
      .set("content-type", "application/json")
      .send("{not json");
    assert.equal(res.status, 400);
    assert.equal(res.body.code, "INVALID_JSON");
  });

  it("no API key → 401; an address outside the organisation's polygon scope → 403, inside (any case) → 200", async () => {
    const none = await request(env.h.app).post("/api/pending-rewards").send({ stake_account_address: d0 });
    assert.equal(none.status, 401);
    assert.equal(none.body.code, "MISSING_API_KEY");
    const scoped = await makeOrganisation(env.h.db, {
      scope: {
        polygon: { delegator_addresses: [d1.toUpperCase().replace("0X", "0x")], validator_addresses: [] },
      },
    });
    const outside = await post({ stake_account_address: d0 }, scoped.apiKey);
    assert.equal(outside.status, 403, JSON.stringify(outside.body));
    assert.equal(outside.body.code, "ADDRESS_NOT_IN_SCOPE");
    const inside = await post({ stake_account_address: d1 }, scoped.apiKey);
    assert.equal(inside.status, 200, JSON.stringify(inside.body));
  });
});
