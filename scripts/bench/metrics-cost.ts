/**
 * `npx tsx scripts/bench/metrics-cost.ts`: what the gateway's metrics add to one request on the request
 * path (metrics.ts: in-flight up and down, the request count, a reservation and an upstream latency), in
 * CPU ns, and what one scrape costs, measured in-process: on a shared machine a whole-gateway A/B
 * comparison cannot resolve a cost this small.
 */
import { createMetrics, noMetrics } from "@stake/gateway/metrics";

const N = Number(process.env.N ?? "2000000");
const outcomes = ["registered", "registered", "registered", "failed", "INSUFFICIENT_BALANCE"];
const providers = ["eth", "sol", "sui"];

function perRequestNs(m: typeof noMetrics): number {
  const started = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    m.started();
    const p = providers[i % 3] as string;
    m.reserveMs(0.2 + (i % 7) * 0.1);
    m.upstreamMs(p, 1 + (i % 13));
    m.finished("party_x", p, outcomes[i % 5]);
  }
  const used = process.cpuUsage(started);
  return ((used.user + used.system) * 1000) / N;
}

const on = createMetrics({ partyLabels: false });
for (let round = 0; round < 3; round++) {
  const baseline = perRequestNs(noMetrics);
  const counted = perRequestNs(on);
  console.log(
    `round ${round + 1}: ${(counted - baseline).toFixed(0)} ns CPU per request (counting) over the no-op`,
  );
}
const t = performance.now();
const text = await on.registry.metrics();
console.log(`one scrape: ${(performance.now() - t).toFixed(1)} ms, ${text.length} bytes`);
