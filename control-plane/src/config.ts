import { z } from "zod";

/** Public, well-known values so `npm start` works out of the box. Never for real funds. */
export const DEMO_ETH_OPERATOR_SEED = "0x" + "de".repeat(32);
export const DEMO_ETH_KEY_ENCRYPTION_KEY = "0x" + "0d".repeat(32);

/**
 * Every environment variable the control plane reads, described once. `loadConfig` is called once, in
 * main.ts; the frozen result is passed down. `scripts/env-example.ts` renders `.env.example` from this.
 */
export const ControlPlaneEnv = z.object({
  CONTROL_PLANE_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3000)
    .describe("HTTP port of the control plane."),
  CONTROL_PLANE_HOST: z.string().default("0.0.0.0").describe("Interface the control plane listens on."),
  WORKER_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(3002)
    .describe("Port of the worker's /healthz and /readyz (the worker serves no API)."),
  DATABASE_URL: z.url().describe("Postgres connection URL (the system of record)."),
  DATABASE_POOL_SIZE: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .default(10)
    .describe("Postgres connections per process."),
  REDIS_URL: z.url().describe("Redis connection URL (rate limits, caches, job queues, ledger hot path)."),
  REDIS_PREFIX: z
    .string()
    .default("stake:")
    .describe("Prefix of every Redis key, to share one Redis between deployments."),
  NETWORK: z
    .enum(["testnet", "mainnet"])
    .default("testnet")
    .describe("The chain environment this deployment serves."),
  LOG_LEVEL: z
    .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
    .default("info")
    .describe("pino log level."),
  JSON_BODY_LIMIT: z
    .string()
    .default("100kb")
    .describe("Largest accepted JSON body (body-parser size syntax)."),
  TRUST_PROXY: z
    .string()
    .default("loopback")
    .describe(
      "Express `trust proxy` setting: which hops may set X-Forwarded-For (client address for rate limits).",
    ),
  ARGON2_MEMORY_KIB: z.coerce
    .number()
    .int()
    .min(8192)
    .default(19456)
    .describe("argon2id memory cost in KiB (OWASP minimum 19 MiB)."),
  ARGON2_ITERATIONS: z.coerce.number().int().min(1).default(2).describe("argon2id time cost."),
  SIGNUP_LIMIT_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe("Sign-ups allowed per client address per window."),
  SIGNUP_LIMIT_PER_EMAIL: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe("Sign-up attempts allowed per e-mail per window."),
  AUTH_FAILURE_LIMIT_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(200)
    .describe("Failed Basic-auth attempts allowed per client address per window."),
  AUTH_FAILURE_LIMIT_PER_EMAIL: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe("Failed Basic-auth attempts allowed per e-mail per window."),
  ABUSE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(900)
    .describe("Window of the sign-up and auth-failure limits."),
  GATEWAY_JWT_SECRET: z
    .string()
    .min(32)
    .default("dev-only-gateway-jwt-secret-change-me-in-production")
    .describe("HS256 secret of gateway account bearer tokens. The default is for local development ONLY."),
  GATEWAY_JWT_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .max(86_400)
    .default(900)
    .describe("Lifetime of a gateway account bearer token."),
  GATEWAY_ACCOUNT_RATE_LIMIT: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe("Gateway account API requests allowed per client address per window."),
  GATEWAY_ACCOUNT_RATE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(900)
    .describe("Window of the gateway account API rate limit."),
  SETTLEMENT_INTERVAL_MS: z.coerce
    .number()
    .int()
    .min(10)
    .default(1000)
    .describe("Pause between two settlement passes of the worker (gateway reservations → ledger debits)."),
  RESERVATION_REAP_AFTER_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(60_000)
    .describe(
      "Age after which a reservation still in flight is failed and its funds released (the gateway's upstream timeout, 30 s by default, plus a grace period).",
    ),
  ETH_NETWORK: z
    .enum(["mainnet", "hoodi"])
    .optional()
    .describe(
      "Beacon network of deposits (fork version, contracts). Default: mainnet if NETWORK=mainnet, else hoodi.",
    ),
  ETH_OPERATOR_SEED: z
    .string()
    .regex(/^(0x)?([0-9a-fA-F]{2}){32,}$/, "hex, at least 32 bytes")
    .default(DEMO_ETH_OPERATOR_SEED)
    .describe(
      "EIP-2333 seed (hex, ≥ 32 bytes) validator signing keys are derived from. The default is a public DEMO seed, refused when NETWORK=mainnet.",
    ),
  ETH_KEY_ENCRYPTION_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "32-byte hex")
    .default(DEMO_ETH_KEY_ENCRYPTION_KEY)
    .describe(
      "AES-256-GCM key (32-byte hex) that encrypts stored validator signing keys. The default is a public DEMO key, refused when NETWORK=mainnet.",
    ),
  ETH_BEACON_URL: z
    .url()
    .default("http://127.0.0.1:5052")
    .describe("Beacon-node REST API (validators, balances, pending deposits) used by add-stake."),
  ETH_DEPOSIT_CONTRACT: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .optional()
    .describe("Override of the deposit contract address (default: the network's, chain notes §1.4)."),
  ETH_BATCH_DEPOSITOR: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .optional()
    .describe("Override of the batch-depositor contract address (default: Attestant's on the network)."),
  SOLANA_RPC_URL: z
    .url()
    .default("http://127.0.0.1:8899")
    .describe("Solana JSON-RPC endpoint of the stake-account area (the simulated node listens on 8899)."),
  SOLANA_MEV_API_URL: z
    .url()
    .default("http://127.0.0.1:8899")
    .describe("Base URL of the Jito-style MEV staker-rewards API (GET <url>/api/v1/staker_rewards)."),
  SOLANA_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .default(10000)
    .describe("Timeout of one Solana RPC or MEV API call, in milliseconds."),
  HYPERLIQUID_API_URL: z
    .url()
    .default("http://127.0.0.1:3001")
    .describe("Hyperliquid API base URL (POST /info and /exchange); the default is the simulated node."),
  HYPERLIQUID_VALIDATOR_ADDRESS: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { message: "Must be 0x followed by 40 hex digits" })
    .transform((a) => a.toLowerCase())
    .default("0x5ac99df645f3414876c816caa18b2d234024b487")
    .describe(
      "The operator's Hyperliquid validator that delegate/undelegate target (default: the devnet's).",
    ),
  HYPERLIQUID_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60000)
    .default(5000)
    .describe("Timeout of each Hyperliquid API call; past it the request fails with 502."),
});

export type ControlPlaneEnv = z.infer<typeof ControlPlaneEnv>;

export interface Config {
  port: number;
  host: string;
  workerPort: number;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  redisPrefix: string;
  network: "testnet" | "mainnet";
  logLevel: ControlPlaneEnv["LOG_LEVEL"];
  jsonBodyLimit: string;
  trustProxy: string;
  argon2: { memoryCost: number; timeCost: number };
  abuse: {
    windowSeconds: number;
    signupPerIp: number;
    signupPerEmail: number;
    authFailuresPerIp: number;
    authFailuresPerEmail: number;
  };
  gatewayAccount: {
    jwtSecret: string;
    jwtTtlSeconds: number;
    rateLimit: number;
    rateWindowSeconds: number;
  };
  settlement: { intervalMs: number; reapAfterMs: number };
  eth: {
    network: "mainnet" | "hoodi";
    /** Hex without 0x. Secret: never log or return it. */
    operatorSeed: string;
    /** Hex without 0x. Secret. */
    keyEncryptionKey: string;
    beaconUrl: string;
    depositContract: string | undefined;
    batchDepositor: string | undefined;
  };
  solana: { rpcUrl: string; mevApiUrl: string; timeoutMs: number };
  hyperliquid: { apiUrl: string; validatorAddress: string; timeoutMs: number };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  const parsed = ControlPlaneEnv.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid control-plane configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  const strip0x = (h: string) => h.replace(/^0x/, "").toLowerCase();
  if (
    e.NETWORK === "mainnet" &&
    (strip0x(e.ETH_OPERATOR_SEED) === strip0x(DEMO_ETH_OPERATOR_SEED) ||
      strip0x(e.ETH_KEY_ENCRYPTION_KEY) === strip0x(DEMO_ETH_KEY_ENCRYPTION_KEY))
  ) {
    throw new Error(
      "invalid control-plane configuration:\n  ETH_OPERATOR_SEED/ETH_KEY_ENCRYPTION_KEY: demo values on mainnet",
    );
  }
  return deepFreeze({
    port: e.CONTROL_PLANE_PORT,
    host: e.CONTROL_PLANE_HOST,
    workerPort: e.WORKER_PORT,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    network: e.NETWORK,
    logLevel: e.LOG_LEVEL,
    jsonBodyLimit: e.JSON_BODY_LIMIT,
    trustProxy: e.TRUST_PROXY,
    argon2: { memoryCost: e.ARGON2_MEMORY_KIB, timeCost: e.ARGON2_ITERATIONS },
    abuse: {
      windowSeconds: e.ABUSE_WINDOW_SECONDS,
      signupPerIp: e.SIGNUP_LIMIT_PER_IP,
      signupPerEmail: e.SIGNUP_LIMIT_PER_EMAIL,
      authFailuresPerIp: e.AUTH_FAILURE_LIMIT_PER_IP,
      authFailuresPerEmail: e.AUTH_FAILURE_LIMIT_PER_EMAIL,
    },
    gatewayAccount: {
      jwtSecret: e.GATEWAY_JWT_SECRET,
      jwtTtlSeconds: e.GATEWAY_JWT_TTL_SECONDS,
      rateLimit: e.GATEWAY_ACCOUNT_RATE_LIMIT,
      rateWindowSeconds: e.GATEWAY_ACCOUNT_RATE_WINDOW_SECONDS,
    },
    settlement: { intervalMs: e.SETTLEMENT_INTERVAL_MS, reapAfterMs: e.RESERVATION_REAP_AFTER_MS },
    eth: {
      network: e.ETH_NETWORK ?? (e.NETWORK === "mainnet" ? "mainnet" : "hoodi"),
      operatorSeed: strip0x(e.ETH_OPERATOR_SEED),
      keyEncryptionKey: strip0x(e.ETH_KEY_ENCRYPTION_KEY),
      beaconUrl: e.ETH_BEACON_URL,
      depositContract: e.ETH_DEPOSIT_CONTRACT,
      batchDepositor: e.ETH_BATCH_DEPOSITOR,
    },
    solana: { rpcUrl: e.SOLANA_RPC_URL, mevApiUrl: e.SOLANA_MEV_API_URL, timeoutMs: e.SOLANA_TIMEOUT_MS },
    hyperliquid: {
      apiUrl: e.HYPERLIQUID_API_URL.replace(/\/+$/, ""),
      validatorAddress: e.HYPERLIQUID_VALIDATOR_ADDRESS,
      timeoutMs: e.HYPERLIQUID_TIMEOUT_MS,
    },
  });
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
