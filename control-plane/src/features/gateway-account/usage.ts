import { formatCoins } from "@stake/db/coin";
import { type gatewayUsageDaily, USAGE_LATENCY_BOUNDS_MS } from "@stake/db/schema/gateway";
import { csvLine } from "../../http/csv.ts";
import type { UsageResponse } from "./schemas.ts";

type UsageRecord = typeof gatewayUsageDaily.$inferSelect;

/**
 * The percentile `q` (0..1) of a latency histogram over USAGE_LATENCY_BOUNDS_MS (then an overflow bucket):
 * the upper bound of the bucket holding the q-th observation, a reading never below the true value, or
 * the last bound for the overflow bucket. Null when the histogram is empty.
 */
export function histogramPercentile(buckets: readonly number[], q: number): number | null {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (!total) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i] ?? 0;
    if (seen >= rank) return USAGE_LATENCY_BOUNDS_MS[i] ?? (USAGE_LATENCY_BOUNDS_MS.at(-1) as number);
  }
  return USAGE_LATENCY_BOUNDS_MS.at(-1) as number;
}

/** Roll-up rows → the usage API's body; amounts summed as bigint base units, shown as coin decimals. */
export function presentUsage(range: { from: string; to: string }, records: UsageRecord[]): UsageResponse {
  let charged = 0n;
  let released = 0n;
  const totals = { requests: 0, settled: 0, failed: 0 };
  const rows = records.map((r) => {
    charged += BigInt(r.charged);
    released += BigInt(r.released);
    totals.requests += r.requests;
    totals.settled += r.settled;
    totals.failed += r.failed;
    return {
      day: r.day,
      keyId: r.keyId,
      providerKey: r.providerKey,
      requests: r.requests,
      settled: r.settled,
      charged: formatCoins(BigInt(r.charged)),
      failed: r.failed,
      released: formatCoins(BigInt(r.released)),
      status: {
        "2xx": r.status2xx,
        "3xx": r.status3xx,
        "4xx": r.status4xx,
        "5xx": r.status5xx,
        none: r.statusNone,
      },
      upstreamP50Ms: histogramPercentile(r.latencyBuckets, 0.5),
      upstreamP95Ms: histogramPercentile(r.latencyBuckets, 0.95),
    };
  });
  return {
    ...range,
    rows,
    totals: { ...totals, charged: formatCoins(charged), released: formatCoins(released) },
  };
}

const CSV_COLUMNS = [
  "day",
  "key_id",
  "provider_key",
  "requests",
  "settled",
  "charged",
  "failed",
  "released",
  "status_2xx",
  "status_3xx",
  "status_4xx",
  "status_5xx",
  "status_none",
  "upstream_p50_ms",
  "upstream_p95_ms",
] as const;

/**
 * CSV of the usage rows (a header line; cells as every export writes them, control-plane/src/http/csv.ts):
 * every field is a number, a date, an id or a provider key, and a provider key is the operator's text.
 */
export function usageCsv(usage: UsageResponse): string {
  const field = (v: string | number | null) => (v === null ? null : String(v));
  let csv = csvLine(CSV_COLUMNS);
  for (const r of usage.rows)
    csv += csvLine(
      [
        r.day,
        r.keyId,
        r.providerKey,
        r.requests,
        r.settled,
        r.charged,
        r.failed,
        r.released,
        r.status["2xx"],
        r.status["3xx"],
        r.status["4xx"],
        r.status["5xx"],
        r.status.none,
        r.upstreamP50Ms,
        r.upstreamP95Ms,
      ].map(field),
    );
  return csv;
}
