import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { pubkeyOf, seedEthereum } from "./seed.ts";

// Smoke of `npm run bench:statements` (docs/benchmarks.md): a month's CSV of 1,000 validators arrives
// whole, streamed (chunked, no Content-Length: not built in memory first), in validator then date order.
let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "statements" });
});
after(() => h.close());

test("a month's CSV of 1,000 validators streams every row", async () => {
  const org = await makeOrganisation(h.db);
  await seedEthereum(
    h,
    1000,
    Array.from({ length: 1000 }, () => org.id),
  );
  const t = performance.now();
  const res = await request(h.app)
    .get("/api/statements.csv")
    .query({ month: "2026-10", chain: "ethereum" })
    .set("api-key", org.apiKey);
  const ms = performance.now() - t;
  assert.equal(res.status, 200, res.text.slice(0, 500));
  assert.equal(res.headers["transfer-encoding"], "chunked");
  assert.equal(res.headers["content-length"], undefined);
  const lines = res.text.split("\r\n").filter((l) => l !== "");
  assert.equal(lines.length, 1 + 1000 * 31);
  assert.ok(lines[1]?.startsWith(`2026-10-01,${pubkeyOf(0)},`), lines[1]);
  assert.ok(lines.at(-1)?.startsWith(`2026-10-31,${pubkeyOf(999)},`), lines.at(-1));
  console.log(
    `1,000 validators × 31 days: ${lines.length - 1} rows, ${res.text.length} bytes in ${ms.toFixed(0)} ms`,
  );
});
