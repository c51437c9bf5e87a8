import cluster from "node:cluster";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  AggregatorRegistry,
  Counter,
  collectDefaultMetrics,
  Gauge,
  Histogram,
  type MetricObjectWithValues,
  type MetricValueWithName,
  Registry,
} from "prom-client";

/**
 * What the request path records. Every call is a number bumped in a preallocated table: prom-client's own
 * `inc`/`observe` build a label hash and an object per call, so its metric objects are filled from these
 * tables only when Prometheus scrapes (`collect`).
 */
export interface GatewayMetrics {
  started(): void;
  /** `provider` only once the provider was found (an unknown key in a path must not become a series). */
  finished(party: string | undefined, provider: string | undefined, outcome: string | undefined): void;
  reserveMs(ms: number): void;
  upstreamMs(provider: string, ms: number): void;
  redisError(op: "reserve" | "finalize" | "connection"): void;
}

/** GATEWAY_METRICS_PORT unset: nothing is counted at all. */
export const noMetrics: GatewayMetrics = {
  started() {},
  finished() {},
  reserveMs() {},
  upstreamMs() {},
  redisError() {},
};

/** Seconds; a reservation is one Redis round trip (~0.2 ms here), a provider answer ms to seconds. */
const RESERVE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const UPSTREAM_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One label set's histogram: per-bucket counts (not cumulative), sum in seconds, count. */
class Tally {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length);
  }
  add(seconds: number) {
    this.sum += seconds;
    this.count++;
    const b = this.bounds;
    for (let i = 0; i < b.length; i++)
      if (seconds <= (b[i] as number)) {
        this.counts[i] = (this.counts[i] ?? 0) + 1;
        return;
      }
  }
}

/**
 * A series' labels with its bucket's `le`, copied key by key: on Node 20 `{ ...labels, le }` takes V8's
 * slow path (5.8 µs against 0.1 µs), once per bucket and series at every scrape, on the event loop that
 * serves the requests (docs/benchmarks.md, "object spread").
 */
function withLe(labels: Record<string, string>, le: number | string): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const k in labels) out[k] = labels[k] as string;
  out.le = le;
  return out;
}

/**
 * A prom-client Histogram whose series are read from Tallies at scrape time, in the shape Histogram.get()
 * returns, so the text format and the cluster aggregation (sum per series) treat it as theirs.
 */
class TallyHistogram extends Histogram<string> {
  constructor(
    private readonly spec: { name: string; help: string; labelNames: string[]; buckets: number[] },
    private readonly series: () => Iterable<[Record<string, string>, Tally]>,
  ) {
    super({ ...spec, registers: [] });
  }
  override async get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    const values: MetricValueWithName<string>[] = [];
    const { name, buckets } = this.spec;
    for (const [labels, t] of this.series()) {
      let acc = 0;
      buckets.forEach((le, i) => {
        acc += t.counts[i] as number;
        values.push({ labels: withLe(labels, le), value: acc, metricName: `${name}_bucket` });
      });
      values.push({ labels: withLe(labels, "+Inf"), value: t.count, metricName: `${name}_bucket` });
      values.push({ labels, value: t.sum, metricName: `${name}_sum` });
      values.push({ labels, value: t.count, metricName: `${name}_count` });
    }
    // prom-client's own objects carry the type as text; its typing asks for the enum and a `collect`.
    const help = this.spec.help;
    return { name, help, type: "histogram" as never, values, aggregator: "sum", collect() {} };
  }
  /** The text format reads this one (Registry.getMetricsAsString); the labels are already whole. */
  getForPromString() {
    return this.get();
  }
}

/** Get-or-create in a Map; `make` is a module-level function, so a call allocates nothing once filled. */
function at<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k);
  if (v === undefined) {
    v = make();
    m.set(k, v);
  }
  return v;
}
const newMap = <K, V>() => new Map<K, V>();
const newUpstreamTally = () => new Tally(UPSTREAM_BUCKETS);

/**
 * prom-client's process metrics the gateway leaves out: the counts of active handles, requests and
 * resources list every open handle (each client and upstream socket) on every scrape, and under load at
 * one scrape a second that alone cost the gateway 5-10 % of its throughput (docs/benchmarks.md).
 */
const HANDLE_LISTINGS = new Set([
  "nodejs_active_handles",
  "nodejs_active_handles_total",
  "nodejs_active_requests",
  "nodejs_active_requests_total",
  "nodejs_active_resources",
  "nodejs_active_resources_total",
]);

/**
 * The gateway's metrics: requests by provider and outcome (and party, only with `partyLabels`: one series
 * per party is the operator's choice), reservation and upstream latency, Redis errors, in-flight, and
 * prom-client's process metrics (event-loop lag, CPU, memory, heap, GC, file descriptors) but the handle
 * listings.
 */
export function createMetrics(opts: { partyLabels: boolean }): GatewayMetrics & { registry: Registry } {
  const registry = new Registry();
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults });
  for (const { name } of defaults.getMetricsAsArray()) {
    const metric = defaults.getSingleMetric(name);
    if (metric && !HANDLE_LISTINGS.has(name)) registry.registerMetric(metric);
  }
  // party → provider → outcome → count; party is "" without party labels.
  const requests = new Map<string, Map<string, Map<string, number>>>();
  const reserve = new Tally(RESERVE_BUCKETS);
  const upstream = new Map<string, Tally>();
  const redisErrors = { reserve: 0, finalize: 0, connection: 0 };
  let inFlight = 0;

  const requestLabels = opts.partyLabels ? ["party", "provider", "outcome"] : ["provider", "outcome"];
  registry.registerMetric(
    new Counter({
      name: "gateway_requests_total",
      help: "Requests answered, by provider and outcome (the access line's outcome field).",
      labelNames: requestLabels,
      registers: [],
      collect() {
        this.reset();
        for (const [party, byProvider] of requests)
          for (const [provider, byOutcome] of byProvider)
            for (const [outcome, n] of byOutcome)
              this.inc(opts.partyLabels ? { party, provider, outcome } : { provider, outcome }, n);
      },
    }),
  );
  registry.registerMetric(
    new Gauge({
      name: "gateway_requests_in_flight",
      help: "Requests received and not yet answered and finalized.",
      registers: [],
      collect() {
        this.set(inFlight);
      },
    }),
  );
  registry.registerMetric(
    new Counter({
      name: "gateway_redis_errors_total",
      help: "Redis failures: a reservation or finalize that threw, or a connection error of a client.",
      labelNames: ["op"],
      registers: [],
      collect() {
        this.reset();
        for (const [op, n] of Object.entries(redisErrors)) this.inc({ op }, n);
      },
    }),
  );
  registry.registerMetric(
    new TallyHistogram(
      {
        name: "gateway_reservation_seconds",
        help: "Time to reserve a request's cost (reserve.lua, one Redis round trip per batch).",
        labelNames: [],
        buckets: RESERVE_BUCKETS,
      },
      () => [[{}, reserve]],
    ),
  );
  registry.registerMetric(
    new TallyHistogram(
      {
        name: "gateway_upstream_seconds",
        help: "Time from sending a request to the provider to its response headers.",
        labelNames: ["provider"],
        buckets: UPSTREAM_BUCKETS,
      },
      () => [...upstream].map(([provider, t]) => [{ provider }, t] as [Record<string, string>, Tally]),
    ),
  );

  return {
    registry,
    started() {
      inFlight++;
    },
    finished(party, provider, outcome) {
      inFlight--;
      const byProvider = at(
        requests,
        opts.partyLabels ? (party ?? "") : "",
        newMap<string, Map<string, number>>,
      );
      const byOutcome = at(byProvider, provider ?? "", newMap<string, number>);
      const o = outcome ?? "unknown";
      byOutcome.set(o, (byOutcome.get(o) ?? 0) + 1);
    },
    reserveMs(ms) {
      reserve.add(ms / 1000);
    },
    upstreamMs(provider, ms) {
      at(upstream, provider, newUpstreamTally).add(ms / 1000);
    },
    redisError(op) {
      redisErrors[op]++;
    },
  };
}

/**
 * Serves GET /metrics on its own port, never the gateway's public one. `render` is this process's registry,
 * or under GATEWAY_PROCESSES > 1 the primary's sum over its workers (`clusterRender`).
 */
export async function serveMetrics(opts: {
  port: number;
  host: string;
  render: () => Promise<string>;
  contentType: string;
}): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url !== "/metrics" && req.url !== "/")) {
      res.writeHead(404).end();
      return;
    }
    opts.render().then(
      (text) => res.writeHead(200, { "content-type": opts.contentType }).end(text),
      (err: unknown) => res.writeHead(503, { "content-type": "text/plain" }).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: opts.port, host: opts.host }, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${opts.host === "0.0.0.0" ? "127.0.0.1" : opts.host}:${port}/metrics`, server };
}

/**
 * Under node:cluster: a worker answers its primary's metric requests from `registry`; the primary's render
 * asks every worker and sums each series (prom-client's AggregatorRegistry; event-loop lag is averaged).
 */
export function joinCluster(registry?: Registry): () => Promise<string> {
  const aggregator = new AggregatorRegistry();
  if (cluster.isWorker && registry) AggregatorRegistry.setRegistries([registry]);
  return () => aggregator.clusterMetrics();
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
