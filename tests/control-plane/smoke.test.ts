import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness();
});
after(() => h.close());

test("healthz and readyz answer", async () => {
  const live = await request(h.app).get("/healthz");
  assert.equal(live.status, 200);
  assert.match(live.headers["request-id"] ?? "", /^req_/);
  const ready = await request(h.app).get("/readyz");
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
});

test("unknown path is a JSON 404", async () => {
  const res = await request(h.app).get("/nope");
  assert.equal(res.status, 404);
  assert.deepEqual(res.body, { error: "No such endpoint", code: "NOT_FOUND" });
});

test("metrics are exposed in Prometheus text format with route patterns", async () => {
  await request(h.app).get("/healthz");
  const res = await request(h.app).get("/metrics");
  assert.equal(res.status, 200);
  assert.match(
    res.text,
    /http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} \d+/,
  );
  assert.match(res.text, /process_cpu_seconds_total/);
});
