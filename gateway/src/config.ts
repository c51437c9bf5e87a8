import {
  ConnectionConfig,
  ConnectionEnv,
  deepFreeze,
  GATEWAY_REQUEST_DEADLINE_MS,
  IDEMPOTENCY_TTL_SECONDS,
  parseEnv,
  port,
} from "@stake/db/env";
import { z } from "zod";

/**
 * Every environment variable the gateway reads, parsed once in main.ts (docs/style.md §4). Database, Redis
 * and log settings are the ones every process shares (@stake/db/env), so they mean the same here as in the
 * control plane.
 */
export const GatewayEnv = z.object({
  GATEWAY_PORT: port(8080, "HTTP port of the gateway."),
  GATEWAY_HOST: z.string().default("0.0.0.0").describe("Interface the gateway listens on."),
  GATEWAY_PROCESSES: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(1)
    .describe(
      "Gateway processes behind the one port (node:cluster; a primary that only forks, restarts and drains them). One per core the gateway may use.",
    ),
  GATEWAY_METRICS_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .optional()
    .describe(
      "Port of the gateway's Prometheus endpoint (GET /metrics), apart from the public port so it is never exposed with it. Unset: no endpoint and nothing counted. 0: any free port (logged). Under GATEWAY_PROCESSES > 1 the primary serves the sum of its processes.",
    ),
  GATEWAY_METRICS_HOST: z
    .string()
    .default("127.0.0.1")
    .describe("Interface of the metrics endpoint: loopback unless the scraper runs on another host."),
  GATEWAY_METRICS_PARTY_LABELS: z
    .stringbool()
    .default(false)
    .describe(
      "Label gateway_requests_total by party too: one series per party, provider and outcome, so only where the number of parties is small enough for the Prometheus server.",
    ),
  ...ConnectionEnv,
  UPSTREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(30_000)
    .describe(
      "Longest wait for a provider's response headers once the request is sent, and between two body chunks.",
    ),
  GATEWAY_REQUEST_DEADLINE_MS,
  UPSTREAM_CONNECT_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(5_000)
    .describe("Provider connect timeout."),
  UPSTREAM_CONNECTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .default(256)
    .describe("Keep-alive connections per provider (one pooled dispatcher each)."),
  CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe("Fallback lifetime of cached keys/providers/rate; pub/sub invalidation is the primary path."),
  CACHE_MAX_STALE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(300_000)
    .describe(
      "Longest a cached key/provider/rate is served while every refresh fails (Postgres down); past it requests fail until Postgres answers again. Never below CACHE_TTL_MS.",
    ),
  IDEMPOTENCY_TTL_SECONDS,
  GATEWAY_PARTY_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe(
      "Requests one party may send per window, counted across every gateway process (in Redis); past it 429 with Retry-After. 0 = no limit. The default sits above one gateway process's peak (~6,000 req/s here), so it binds a party spread over several processes; set it to your plans.",
    ),
  GATEWAY_PARTY_RATE_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(1000)
    .describe("Window of the per-party request limit (fixed window, starting at the party's first request)."),
  GATEWAY_PARTY_FAILURE_LIMIT: z.coerce
    .number()
    .int()
    .min(0)
    .default(1000)
    .describe(
      "Failed (released, uncharged) requests one party may cause per failure window; past it 429 with Retry-After until the window ends. Each costs a Redis record and a Postgres row and is free, so this bounds what a party can make the platform store for nothing. 0 = no limit.",
    ),
  GATEWAY_PARTY_FAILURE_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60_000)
    .describe("Window of the per-party failure limit (fixed window, starting at the party's first failure)."),
  GATEWAY_UNANSWERED_RECORD_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(600)
    .describe(
      "How long the Redis record of a request that failed before any provider byte (connection refused, timeout, client gone before its request was delivered) keeps its idempotency key; other records keep it IDEMPOTENCY_TTL_SECONDS.",
    ),
});

export type GatewayEnv = z.infer<typeof GatewayEnv>;

/** The gateway's configuration: its variables and the object the code reads. */
export const GatewayConfig = GatewayEnv.transform((e) => ({
  port: e.GATEWAY_PORT,
  host: e.GATEWAY_HOST,
  processes: e.GATEWAY_PROCESSES,
  metrics:
    e.GATEWAY_METRICS_PORT === undefined
      ? undefined
      : {
          port: e.GATEWAY_METRICS_PORT,
          host: e.GATEWAY_METRICS_HOST,
          partyLabels: e.GATEWAY_METRICS_PARTY_LABELS,
        },
  ...ConnectionConfig.out.parse(e),
  upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
  requestDeadlineMs: e.GATEWAY_REQUEST_DEADLINE_MS,
  upstreamConnectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
  upstreamConnections: e.UPSTREAM_CONNECTIONS,
  cacheTtlMs: e.CACHE_TTL_MS,
  cacheMaxStaleMs: e.CACHE_MAX_STALE_MS,
  idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
  partyRateLimit: { limit: e.GATEWAY_PARTY_RATE_LIMIT, windowMs: e.GATEWAY_PARTY_RATE_WINDOW_MS },
  partyFailureLimit: {
    limit: e.GATEWAY_PARTY_FAILURE_LIMIT,
    windowMs: e.GATEWAY_PARTY_FAILURE_WINDOW_MS,
    unansweredTtlSeconds: e.GATEWAY_UNANSWERED_RECORD_TTL_SECONDS,
  },
}));

export type GatewayConfig = z.output<typeof GatewayConfig>;

export function loadGatewayConfig(env: Record<string, string | undefined>): Readonly<GatewayConfig> {
  return deepFreeze(parseEnv(GatewayConfig, env));
}
