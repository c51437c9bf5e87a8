/**
 * The bench's view of a gateway's Prometheus endpoint: scraped every second while a load runs (as a
 * Prometheus server would), then read once more to compare its request count with the bench's own.
 */
import { scrape } from "../lib/prometheus.ts";

export interface ScrapeStats {
  scrapes: number;
  /** Longest scrape, ms: what answering Prometheus costs the gateway's event loop at worst. */
  maxMs: number;
  /** Highest in-flight seen by a scrape during the load. */
  maxInFlight: number;
}

/** Scrapes `url` every `everyMs` until `stop()`; a failed scrape fails the bench. */
export function scrapeDuring(url: string, everyMs = 1000) {
  const stats: ScrapeStats = { scrapes: 0, maxMs: 0, maxInFlight: 0 };
  let failure: unknown;
  let running = Promise.resolve();
  const tick = () => {
    running = (async () => {
      const t = performance.now();
      const m = await scrape(url);
      stats.maxMs = Math.max(stats.maxMs, performance.now() - t);
      stats.maxInFlight = Math.max(stats.maxInFlight, m.sum("gateway_requests_in_flight"));
      stats.scrapes++;
    })().catch((err: unknown) => {
      failure = err;
    });
  };
  const timer = setInterval(tick, everyMs);
  return {
    async stop(): Promise<ScrapeStats> {
      clearInterval(timer);
      await running;
      if (failure) throw failure;
      return stats;
    },
  };
}

/**
 * Prints a few figures of the endpoint and whether its count of served (registered) requests equals the
 * 200s the load generators counted. Returns that agreement.
 */
export async function reportMetrics(
  name: string,
  url: string,
  servedByBench: number,
  during: ScrapeStats[],
): Promise<boolean> {
  const m = await scrape(url);
  const served = m.sum("gateway_requests_total", { outcome: "registered" });
  const mean = (metric: string) => (m.sum(`${metric}_sum`) / m.sum(`${metric}_count`)) * 1e3;
  const scrapes = during.reduce((n, s) => n + s.scrapes, 0);
  const maxMs = Math.max(0, ...during.map((s) => s.maxMs));
  const maxInFlight = Math.max(0, ...during.map((s) => s.maxInFlight));
  const agree = served === servedByBench;
  console.log(
    `${name} metrics (${scrapes} scrapes during the runs, longest ${maxMs.toFixed(1)} ms): ` +
      `served ${served} (bench counted ${servedByBench}: ${agree ? "agree" : "DISAGREE"}), ` +
      `other outcomes ${m.sum("gateway_requests_total") - served}, in flight up to ${maxInFlight}, ` +
      `reservation mean ${mean("gateway_reservation_seconds").toFixed(3)} ms, ` +
      `upstream mean ${mean("gateway_upstream_seconds").toFixed(3)} ms, ` +
      `event-loop lag p99 ${(m.sum("nodejs_eventloop_lag_p99_seconds") * 1e3).toFixed(1)} ms, ` +
      `Redis errors ${m.sum("gateway_redis_errors_total")}`,
  );
  return agree;
}
