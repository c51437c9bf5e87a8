import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import request from "supertest";
import { SAMPLE } from "../../devnet/sui/scenario.ts";
import { type SuiEnv, startSuiEnv } from "./setup.ts";

const good = { stake_account_address: SAMPLE.delegator, start_date: "2025-01-01", end_date: "2025-01-02" };

describe("Sui rewards: bad input is a clear 400 in the area's error format", () => {
  let env: SuiEnv;
  const post = (body: unknown, query = "") =>
    request(env.h.app)
      .post(`/sui/rewards/daily${query}`)
      .set("x-api-key", env.key)
      .send(body as object);

  before(async () => {
    env = await startSuiEnv();
  });
  after(async () => env?.close());

  const cases: [string, unknown, string, string?][] = [
    ["address too short", { ...good, stake_account_address: "0x1234" }, "stake_account_address"],
    [
      "address of 20 bytes",
      { ...good, stake_account_address: `0x${"ab".repeat(20)}` },
      "stake_account_address",
    ],
    ["address not hex", { ...good, stake_account_address: `0x${"zz".repeat(32)}` }, "stake_account_address"],
    ["address without 0x", { ...good, stake_account_address: "ab".repeat(32) }, "stake_account_address"],
    ["address missing", { start_date: "2025-01-01", end_date: "2025-01-02" }, "stake_account_address"],
    ["date not YYYY-MM-DD", { ...good, start_date: "01/01/2025" }, "start_date"],
    ["date that does not exist", { ...good, end_date: "2025-02-30" }, "end_date"],
    ["month 13", { ...good, start_date: "2025-13-01" }, "start_date"],
    ["date as a number", { ...good, end_date: 20250102 }, "end_date"],
    ["end before start", { ...good, start_date: "2025-01-02", end_date: "2025-01-01" }, "end_date"],
    ["367 days", { ...good, start_date: "2024-01-01", end_date: "2025-01-01" }, "end_date"],
    ["limit 0", good, "limit", "?page=1&limit=0"],
    ["limit 101", good, "limit", "?page=1&limit=101"],
    ["limit 101 in the spec's spelling", good, "limit", "?page=1?limit=101"],
    ["page 0", good, "page", "?page=0"],
    ["page not a number", good, "page", "?page=abc"],
  ];
  for (const [name, body, field, query] of cases) {
    it(`${name} → 400 VALIDATION_ERROR on ${field}`, async () => {
      const res = await post(body, query);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.equal(typeof res.body.error, "string");
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        JSON.stringify(res.body.details),
      );
    });
  }

  it("366 days (a leap year) and limit 100 are accepted", async () => {
    const res = await post({ ...good, start_date: "2024-01-01", end_date: "2024-12-31" }, "?limit=100");
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });

  it("a body that is not JSON is INVALID_JSON; no key is 401", async () => {
    const bad = await request(env.h.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", env.key)
      .set("content-type", "application/json")
      .send("{nope");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, "INVALID_JSON");
    const anonymous = await request(env.h.app).post("/api/rewards").send(good);
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.code, "MISSING_API_KEY");
  });
});
