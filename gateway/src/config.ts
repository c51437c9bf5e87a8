import { z } from "zod";

/** Every environment variable the gateway reads, parsed once in main.ts (STYLE §3.5). */
export const GatewayEnv = z.object({
  GATEWAY_PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe("HTTP port of the gateway."),
  GATEWAY_HOST: z.string().default("0.0.0.0").describe("Interface the gateway listens on."),
  DATABASE_URL: z.url().describe("Postgres URL (keys, parties, providers, coin rate)."),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10).describe("Postgres connections."),
  REDIS_URL: z.url().describe("Redis URL (balances, reservations, cache invalidation)."),
  REDIS_PREFIX: z.string().default("stake:").describe("Prefix of every Redis key."),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level."),
  UPSTREAM_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1)
    .default(30_000)
    .describe("Longest wait for a provider's response headers, and between two body chunks."),
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
  IDEMPOTENCY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(86_400)
    .default(172_800)
    .describe("How long a reservation (and so its idempotency key) is kept; at least 24 h."),
});

export type GatewayEnv = z.infer<typeof GatewayEnv>;

export interface GatewayConfig {
  port: number;
  host: string;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  redisPrefix: string;
  logLevel: GatewayEnv["LOG_LEVEL"];
  upstreamTimeoutMs: number;
  upstreamConnectTimeoutMs: number;
  upstreamConnections: number;
  cacheTtlMs: number;
  idempotencyTtlSeconds: number;
}

export function loadGatewayConfig(env: Record<string, string | undefined>): Readonly<GatewayConfig> {
  const e = GatewayEnv.parse(env);
  return Object.freeze({
    port: e.GATEWAY_PORT,
    host: e.GATEWAY_HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    logLevel: e.LOG_LEVEL,
    upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    upstreamConnectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
    upstreamConnections: e.UPSTREAM_CONNECTIONS,
    cacheTtlMs: e.CACHE_TTL_MS,
    idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
  });
}
