import assert from "node:assert/strict";
import { test } from "node:test";
import { USAGE_LATENCY_BOUNDS_MS } from "@stake/db/schema/gateway";
import { histogramPercentile, usageCsv } from "./usage.ts";

const empty = () => new Array<number>(USAGE_LATENCY_BOUNDS_MS.length + 1).fill(0);

test("a percentile is the upper bound of the bucket holding the ceil(q·n)-th observation", () => {
  assert.equal(histogramPercentile(empty(), 0.5), null, "no answered request");
  const h = empty();
  h[0] = 50; // ≤ 5 ms
  h[3] = 45; // 26..50 ms
  h[7] = 5; // 501..1000 ms
  assert.equal(histogramPercentile(h, 0.5), 5, "the 50th of 100 is in the first bucket");
  assert.equal(histogramPercentile(h, 0.51), 50);
  assert.equal(histogramPercentile(h, 0.95), 50, "the 95th is the last of the 26..50 ms bucket");
  assert.equal(histogramPercentile(h, 0.96), 1000);
  const slow = empty();
  slow[USAGE_LATENCY_BOUNDS_MS.length] = 1;
  assert.equal(histogramPercentile(slow, 0.5), 30_000, "the overflow bucket reads as the last bound");
});

test("the CSV quotes what needs it and defuses spreadsheet formulas in text fields", () => {
  const row = {
    day: "2026-11-26",
    keyId: "gkid_x",
    providerKey: '=cmd,"x"',
    requests: 1,
    settled: 1,
    charged: "0.02",
    failed: 0,
    released: "0",
    status: { "2xx": 1, "3xx": 0, "4xx": 0, "5xx": 0, none: 0 },
    upstreamP50Ms: 5,
    upstreamP95Ms: null,
  };
  const csv = usageCsv({
    from: "2026-11-26",
    to: "2026-11-26",
    rows: [row],
    totals: { requests: 1, settled: 1, charged: "0.02", failed: 0, released: "0" },
  });
  const [, line] = csv.split("\r\n");
  assert.equal(line, `2026-11-26,gkid_x,"'=cmd,""x""",1,1,0.02,0,0,1,0,0,0,0,5,`);
  assert.ok(csv.endsWith("\r\n"));
});
