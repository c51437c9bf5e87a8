import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createMetrics } from "../../gateway/src/metrics.ts";
import { parsePrometheus, scrape } from "../../scripts/lib/prometheus.ts";
import { eventually } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// The gateway's Prometheus endpoint (GATEWAY_METRICS_PORT): its own port, one count per answered request.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;

before(async () => {
  h = await createGatewayHarness({ GATEWAY_METRICS_PORT: "0" });
  provider = await startProvider();
  await h.setRate("1");
  await h.addProvider("p", provider.url, "0.01");
});
after(async () => {
  await h.close();
  await provider.close();
});

test("requests by provider and outcome, reservation and upstream latency, in-flight, on their own port", async () => {
  assert.ok(h.metricsUrl, "the metrics endpoint listens");
  assert.notEqual(new URL(h.metricsUrl).port, new URL(h.url).port);
  const acct = await h.createAccount({ coins: "10" });
  let n = 0;
  const call = (path: string, apiKey = acct.apiKey) =>
    send(`${h.url}${path}`, { headers: ["x-gateway-api-key", apiKey, "idempotency-key", `m-${++n}`] });
  for (let i = 0; i < 5; i++) assert.equal((await call("/gateway/p/echo")).status, 200);
  for (let i = 0; i < 2; i++) assert.equal((await call("/gateway/p/status?code=500")).status, 500);
  assert.equal((await call("/gateway/nope/echo")).status, 404);
  assert.equal((await call("/gateway/p/echo", "sk_not_a_key")).status, 401);

  // The count lands as the access line is written, just after the answer left.
  const m = await eventually(
    async () => {
      const s = await scrape(h.metricsUrl as string);
      return s.sum("gateway_requests_total") === 9 && s;
    },
    { what: "nine requests counted" },
  );
  assert.equal(m.sum("gateway_requests_total", { provider: "p", outcome: "registered" }), 5);
  assert.equal(m.sum("gateway_requests_total", { provider: "p", outcome: "failed" }), 2);
  // A key in the path that names no provider is not a label value: nobody can grow the series set.
  assert.equal(m.sum("gateway_requests_total", { provider: "" }), 2);
  assert.ok(!m.samples.some((s) => s.labels.provider === "nope"));
  assert.ok(!m.samples.some((s) => "party" in s.labels), "no party labels unless turned on");
  assert.equal(m.sum("gateway_reservation_seconds_count"), 7);
  assert.equal(m.sum("gateway_upstream_seconds_count", { provider: "p" }), 7);
  assert.equal(m.sum("gateway_upstream_seconds_bucket", { provider: "p", le: "+Inf" }), 7);
  assert.ok(m.sum("gateway_upstream_seconds_sum", { provider: "p" }) > 0);
  assert.equal(m.sum("gateway_requests_in_flight"), 0);
  assert.equal(m.sum("gateway_redis_errors_total"), 0);
  assert.ok(m.samples.some((s) => s.name === "nodejs_eventloop_lag_seconds"));
});

test("party labels only when the operator turns them on", async () => {
  const on = createMetrics({ partyLabels: true });
  on.started();
  on.finished("party_a", "p", "registered");
  on.reserveMs(0.7);
  const samples = parsePrometheus(await on.registry.metrics());
  const requests = samples.filter((s) => s.name === "gateway_requests_total");
  assert.deepEqual(requests, [
    {
      name: "gateway_requests_total",
      labels: { party: "party_a", provider: "p", outcome: "registered" },
      value: 1,
    },
  ]);
  // 0.7 ms falls in the 1 ms bucket and every bucket above it (cumulative), not in 0.5 ms.
  const bucket = (le: string) =>
    samples.find((s) => s.name === "gateway_reservation_seconds_bucket" && s.labels.le === le)?.value;
  assert.equal(bucket("0.0005"), 0);
  assert.equal(bucket("0.001"), 1);
  assert.equal(bucket("+Inf"), 1);
});
