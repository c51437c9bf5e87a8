import { z } from "zod";

/**
 * The configuration every process of the system reads the same way (control plane, worker, gateway,
 * operator CLI): one definition per variable, so a variable means one thing and is documented once in
 * `.env.example` and the README table. Each process composes its own schema from these pieces.
 */

export const port = (fallback: number, description: string) =>
  z.coerce.number().int().min(0).max(65535).default(fallback).describe(description);

export const DATABASE_URL = z.url().describe("Postgres connection URL (the system of record).");
export const DATABASE_POOL_SIZE = z.coerce
  .number()
  .int()
  .min(1)
  .max(200)
  .default(10)
  .describe("Postgres connections per process.");
export const REDIS_URL = z
  .url()
  .describe("Redis connection URL (rate limits, caches, job queues, ledger hot path).");
export const REDIS_CLUSTER_NODES = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[^\s:,]+:\d{1,5}$/, "each node as host:port")))
  .optional()
  .describe(
    "Redis Cluster nodes to discover the cluster from, comma-separated `host:port` (a few suffice). Set: every Redis client is a cluster client, REDIS_URL then gives only the user, password and TLS (`rediss://`) of every node. Empty: one Redis at REDIS_URL.",
  );
export const REDIS_PREFIX = z
  .string()
  .regex(/^[^{}]*$/, "no braces: the platform's keys carry Redis Cluster hash tags after the prefix")
  .default("stake:")
  .describe("Prefix of every Redis key, to share one Redis between deployments.");
export const LOG_LEVEL = z
  .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
  .default("info")
  .describe("pino log level.");

export const IDEMPOTENCY_TTL_SECONDS = z.coerce
  .number()
  .int()
  .min(86_400)
  .default(172_800)
  .describe(
    "How long a settled or failed reservation record (and so its idempotency key) stays in Redis; at least 24 h. An open one never expires.",
  );

export const GATEWAY_REQUEST_DEADLINE_MS = z.coerce
  .number()
  .int()
  .min(100)
  .default(40_000)
  .describe(
    "Hard deadline of one gateway request or upgrade, from its arrival to the provider's response headers (or 101), the client's body upload included; past it the gateway answers 408 (body still arriving) or 502 and releases the reservation. RESERVATION_REAP_AFTER_MS must exceed it by more than 1 s.",
  );

/**
 * What RESERVATION_REAP_AFTER_MS must exceed GATEWAY_REQUEST_DEADLINE_MS by. The deadline runs on the
 * gateway's clock from the request's arrival, the reap age on the worker's from the reservation's creation
 * (later): the margin covers the finalize's own trip to Redis and ordinary clock skew between hosts.
 */
export const REAP_MARGIN_MS = 1000;

/**
 * Refuses a reap delay that cannot go with the gateway deadline (a refinement of every schema that reads
 * both). A reaper faster than the deadline would release reservations whose requests the gateway is still
 * serving (they are then charged late, but the party could spend the released funds meanwhile).
 */
export function reapAfterDeadline(
  e: { RESERVATION_REAP_AFTER_MS: number; GATEWAY_REQUEST_DEADLINE_MS: number },
  ctx: z.RefinementCtx,
) {
  const reapAfterMs = e.RESERVATION_REAP_AFTER_MS;
  const deadlineMs = e.GATEWAY_REQUEST_DEADLINE_MS;
  if (reapAfterMs > deadlineMs + REAP_MARGIN_MS) return;
  ctx.addIssue({
    code: "custom",
    path: ["RESERVATION_REAP_AFTER_MS"],
    message: `${reapAfterMs} must be greater than GATEWAY_REQUEST_DEADLINE_MS (${deadlineMs}) + ${REAP_MARGIN_MS} ms, or the reaper releases requests the gateway is still serving`,
  });
}

export const DEMO_MODE = z
  .stringbool()
  .default(false)
  .describe(
    "Accept the public demo secrets (the defaults of GATEWAY_JWT_SECRET, ETH_OPERATOR_SEED, ETH_KEY_ENCRYPTION_KEY). `npm start` turns it on; every other deployment must set its own secrets, and mainnet refuses the demo values even with it on.",
  );

/**
 * Why a secret left at its public demo value is refused, or undefined when it is accepted: only in demo
 * mode, and never where real funds are involved (the value is published in this repository, so anyone
 * could sign tokens or decrypt keys with it).
 */
export function demoSecretProblem(opts: {
  isDemo: boolean;
  demoMode: boolean;
  realFunds: boolean;
}): string | undefined {
  if (!opts.isDemo) return undefined;
  if (opts.realFunds) return "the public demo value is refused on mainnet";
  if (!opts.demoMode) return "the public demo value is refused unless DEMO_MODE=1 (set your own)";
  return undefined;
}

/** What a long-running process needs to reach Postgres and Redis and to log. */
export const ConnectionEnv = {
  DATABASE_URL,
  DATABASE_POOL_SIZE,
  REDIS_URL,
  REDIS_CLUSTER_NODES,
  REDIS_PREFIX,
  LOG_LEVEL,
};

/**
 * The connection variables as the config fields every process passes down. A process lists the variables
 * in its own schema and applies this transform to them (`ConnectionConfig.out.parse(parsed)`).
 */
export const ConnectionConfig = z.object(ConnectionEnv).transform((e) => ({
  databaseUrl: e.DATABASE_URL,
  databasePoolSize: e.DATABASE_POOL_SIZE,
  redisUrl: e.REDIS_URL,
  redisClusterNodes: e.REDIS_CLUSTER_NODES ?? [],
  redisPrefix: e.REDIS_PREFIX,
  logLevel: e.LOG_LEVEL,
}));

export type ConnectionSettings = z.output<typeof ConnectionConfig>;
export type LogLevel = z.output<typeof LOG_LEVEL>;

/** A configuration the process cannot start with; `problems` are `VAR: message` lines. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.map((p) => `invalid configuration: ${p}`).join("\n"));
    this.name = "ConfigError";
  }
}

/** Parses `env` with `schema`; every problem is reported at once, named by its variable. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    parsed.error.issues.map((i) => `${i.path.join(".") || "(environment)"}: ${i.message}`),
  );
}

/**
 * For a process's entry point: the loaded configuration, or, on a ConfigError, its `invalid
 * configuration: VAR: message` lines on stderr and exit code 1 (a stack trace would bury the variable).
 */
export function loadOrExit<T>(load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}

export function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
