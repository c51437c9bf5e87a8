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

test("metrics are not public: loopback clients only, or the METRICS_TOKEN bearer", async () => {
  const remote = await request(h.app).get("/metrics").set("x-forwarded-for", "203.0.113.7");
  assert.equal(remote.status, 403, "a client behind the trusted loopback proxy is not local");
  assert.deepEqual(remote.body, { error: "Metrics are served to loopback clients only", code: "FORBIDDEN" });
  const token = "t".repeat(40);
  const guarded = await createControlPlaneHarness({ METRICS_TOKEN: token });
  try {
    assert.equal(
      (await request(guarded.app).get("/metrics")).status,
      401,
      "a token set: even loopback needs it",
    );
    const wrong = await request(guarded.app)
      .get("/metrics")
      .set("authorization", `Bearer ${"x".repeat(40)}`);
    assert.equal(wrong.status, 401);
    const ok = await request(guarded.app)
      .get("/metrics")
      .set("authorization", `Bearer ${token}`)
      .set("x-forwarded-for", "203.0.113.7");
    assert.equal(ok.status, 200);
    assert.match(ok.text, /process_cpu_seconds_total/);
  } finally {
    await guarded.close();
  }
});
