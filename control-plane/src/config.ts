import {
  ConnectionConfig,
  DATABASE_POOL_SIZE,
  DATABASE_URL,
  DEMO_MODE,
  deepFreeze,
  demoSecretProblem,
  GATEWAY_REQUEST_DEADLINE_MS,
  IDEMPOTENCY_TTL_SECONDS,
  LOG_LEVEL,
  parseEnv,
  port,
  REDIS_CLUSTER_NODES,
  REDIS_PREFIX,
  REDIS_URL,
  reapAfterDeadline,
} from "@stake/db/env";
import { z } from "zod";
import { EVM_ADDRESS } from "./chains/evm.ts";
import { BeaconDataConfig } from "./features/beacon-data/config.ts";
import { DashboardConfig } from "./features/dashboard/config.ts";
import { DEMO_GATEWAY_JWT_SECRET, GatewayAccountConfig } from "./features/gateway-account/config.ts";
import { SettlementConfig } from "./features/gateway-settlement/config.ts";
import { HyperliquidConfig } from "./features/hyperliquid-delegation/config.ts";
import { PartitionsConfig } from "./features/partitions/config.ts";
import { PolygonRewardsConfig } from "./features/polygon-rewards/config.ts";
import { SolanaStakeConfig } from "./features/solana-stake/config.ts";
import { SuiRewardsConfig } from "./features/sui-rewards/config.ts";
import { WebhooksConfig } from "./features/webhooks/config.ts";
import { NETWORK } from "./network.ts";

/** Public, well-known values so `npm start` works out of the box. Never for real funds. */
export const DEMO_ETH_OPERATOR_SEED = "0x" + "de".repeat(32);
export const DEMO_ETH_KEY_ENCRYPTION_KEY = "0x" + "0d".repeat(32);

/**
 * The control plane's areas, named as their folders under `features/`, in the order their routes are
 * registered. `compose.ts` loads each from `areas/<name>.ts`.
 */
export const AREA_NAMES = [
  "account-v2",
  "account-v1",
  "hyperliquid-delegation",
  "solana-stake",
  "beacon-provisioning",
  "sui-rewards",
  "polygon-rewards",
  "beacon-data",
  "gateway-account",
  "gateway-settlement",
  "dashboard",
  "console",
  "webhooks",
  "partitions",
  "statements",
] as const;
export type AreaName = (typeof AREA_NAMES)[number];

const AREAS = z
  .string()
  .transform((list, ctx) => {
    const names = list
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    const unknown = names.filter((n) => !(AREA_NAMES as readonly string[]).includes(n));
    if (unknown.length > 0)
      ctx.addIssue({
        code: "custom",
        message: `unknown area ${unknown.join(", ")}; areas: ${AREA_NAMES.join(", ")}`,
      });
    return AREA_NAMES.filter((n) => names.includes(n));
  })
  .default([...AREA_NAMES])
  .describe(
    "Comma-separated areas this process serves (API) or runs the jobs of (worker): all by default. An area left out is not loaded at all.",
  );

const replicaUrls = (v: string) =>
  v
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);

/**
 * Every environment variable the control plane reads, described once (the pieces every process shares
 * come from @stake/db/env). `loadConfig` is called once, in main.ts and worker.ts; the frozen result is
 * passed down. `scripts/env-example.ts` renders `.env.example` from this.
 */
export const ControlPlaneEnv = z.object({
  CONTROL_PLANE_PORT: port(3000, "HTTP port of the control plane."),
  CONTROL_PLANE_HOST: z.string().default("0.0.0.0").describe("Interface the control plane listens on."),
  WORKER_PORT: port(3002, "Port of the worker's /healthz and /readyz (the worker serves no API)."),
  CONTROL_PLANE_AREAS: AREAS,
  DATABASE_URL,
  DATABASE_POOL_SIZE,
  DATABASE_REPLICA_URLS: z
    .string()
    .default("")
    .refine(
      (v) => replicaUrls(v).every((u) => URL.canParse(u) && /^postgres(ql)?:$/.test(new URL(u).protocol)),
      "a comma-separated list of postgres:// URLs",
    )
    .describe(
      "Comma-separated Postgres read replicas (streaming replicas of DATABASE_URL) the beacon-data read endpoints query in turn. Empty by default: the primary serves them.",
    ),
  REDIS_URL,
  REDIS_CLUSTER_NODES,
  REDIS_PREFIX,
  NETWORK,
  LOG_LEVEL,
  DEMO_MODE,
  CHAIN_RESET_POLICY: z
    .enum(["refuse", "reindex"])
    .default("refuse")
    .describe(
      "When a chain follower's node serves another chain than the one indexed (a re-genesis, another network): refuse (stop writing, data endpoints answer 503 CHAIN_MISMATCH until an operator runs `chain reindex`) or reindex (delete that area's indexed chain data and index the node's chain; devnets and scheduled-reset testnets). Refused with NETWORK=mainnet.",
    ),
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
  ARGON2_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .default(2)
    .describe(
      "Password hashes computed at once per process; the rest wait their turn. Keep it below UV_THREADPOOL_SIZE (default 4), which file system, DNS and crypto work shares.",
    ),
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
  API_KEY_REQUESTS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(300)
    .describe(
      "Requests allowed per staking API key per minute, across every API-key area but Solana's (which has SOLANA_REQUESTS_PER_KEY_PER_MINUTE); past it 429 with Retry-After and the RateLimit fields.",
    ),
  API_KEYS_PER_ORGANISATION: z.coerce
    .number()
    .int()
    .min(1)
    .default(20)
    .describe("Active (unrevoked) staking API keys an organisation may hold; creating one more is 409."),
  AUTH_FAILURE_LIMIT_PER_IP: z.coerce
    .number()
    .int()
    .min(1)
    .default(200)
    .describe(
      "Failed password attempts (Basic auth and gateway login) allowed per client address per window.",
    ),
  AUTH_FAILURE_LIMIT_PER_EMAIL: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe(
      "Failed password attempts per (client address, e-mail) pair before each further one is delayed 1, 2, 4, … s (at most 15 min); Basic auth and gateway login.",
    ),
  ABUSE_WINDOW_SECONDS: z.coerce
    .number()
    .int()
    .min(1)
    .default(900)
    .describe("Window of the sign-up and auth-failure limits."),
  METRICS_TOKEN: z
    .string()
    .min(32)
    .optional()
    .describe(
      "Bearer token that /metrics requires. Unset: /metrics answers loopback clients only (a scraper on the same host).",
    ),
  ...GatewayAccountConfig.in.shape,
  ...SettlementConfig.in.shape,
  GATEWAY_REQUEST_DEADLINE_MS,
  IDEMPOTENCY_TTL_SECONDS,
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
      "EIP-2333 seed (hex, ≥ 32 bytes) validator signing keys are derived from. The default is a public DEMO seed, refused unless DEMO_MODE=1, and always when NETWORK or ETH_NETWORK is mainnet.",
    ),
  ETH_KEY_ENCRYPTION_KEY: z
    .string()
    .regex(/^(0x)?[0-9a-fA-F]{64}$/, "32-byte hex")
    .default(DEMO_ETH_KEY_ENCRYPTION_KEY)
    .describe(
      "AES-256-GCM key (32-byte hex) that encrypts stored validator signing keys. The default is a public DEMO key, refused unless DEMO_MODE=1, and always when NETWORK or ETH_NETWORK is mainnet.",
    ),
  ETH_BEACON_URL: z
    .url()
    .default("http://127.0.0.1:5052")
    .describe("Beacon-node REST API (standard Beacon API) read by add-stake and the beacon-data indexer."),
  ETH_PROVISION_QUOTA: z.coerce
    .number()
    .int()
    .min(1)
    .default(1000)
    .describe(
      "Validators an organisation may have provisioned but not yet deposited (being created, or created and not seen on the beacon chain); a provision past it is 409 PROVISION_QUOTA_EXCEEDED.",
    ),
  ETH_EXIT_SIGNING_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(10)
    .describe(
      "Calls an organisation may make per minute to the endpoints that sign voluntary exits (POST /api/validators/exit and /exit-messages, up to 100 signatures each); past it 429 with Retry-After.",
    ),
  ETH_BEACON_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(60000)
    .default(5000)
    .describe("Timeout of each beacon-node call; past it the request fails with 504."),
  ETH_DEPOSIT_CONTRACT: z
    .string()
    .regex(EVM_ADDRESS)
    .optional()
    .describe("Deposit contract address override (default: the network's, docs/chains/ethereum.md §1.4)."),
  ETH_BATCH_DEPOSITOR: z
    .string()
    .regex(EVM_ADDRESS)
    .optional()
    .describe("Override of the batch-depositor contract address (default: Attestant's on the network)."),
  ...SolanaStakeConfig.in.shape,
  ...HyperliquidConfig.in.shape,
  NODE_RESPONSE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(65536)
    .default(64 * 1024 * 1024)
    .describe(
      "Most bytes of one answer of any chain node or third-party API (decoded); past it the body is dropped and the call fails with 502. The largest honest answers are a mainnet Beacon node's pending-deposit queue and validator lists (tens of MB).",
    ),
  ...SuiRewardsConfig.in.shape,
  // NETWORK, which Polygon's defaults follow, is listed above.
  ...PolygonRewardsConfig.in.omit({ NETWORK: true }).shape,
  ...DashboardConfig.in.shape,
  ...BeaconDataConfig.in.shape,
  ...WebhooksConfig.in.shape,
  ...PartitionsConfig.in.shape,
});

export type ControlPlaneEnv = z.infer<typeof ControlPlaneEnv>;

const strip0x = (h: string) => h.replace(/^0x/, "").toLowerCase();
const ethNetworkOf = (e: Pick<ControlPlaneEnv, "NETWORK" | "ETH_NETWORK">) =>
  e.ETH_NETWORK ?? (e.NETWORK === "mainnet" ? "mainnet" : "hoodi");

/**
 * The control plane's configuration: the variables, the rules across them, and the object the code
 * reads. Each area's part is that area's own schema (`features/<area>/config.ts`): its variables are
 * parsed here with the rest (so each is reported by its name), then its transform builds its part.
 */
export const ControlPlaneConfig = ControlPlaneEnv.superRefine((e, ctx) => {
  // Judged on the resolved networks: deposits follow ETH_NETWORK, so a mainnet ETH_NETWORK puts real
  // validator keys behind the seed and the key-encryption key even on a testnet deployment.
  const realFunds = {
    chains: e.NETWORK === "mainnet",
    ethereum: ethNetworkOf(e) === "mainnet" || e.NETWORK === "mainnet",
  };
  const demo = (name: string, isDemo: boolean, realFundsHere: boolean) =>
    [name, demoSecretProblem({ isDemo, demoMode: e.DEMO_MODE, realFunds: realFundsHere })] as const;
  const problems = [
    demo("GATEWAY_JWT_SECRET", e.GATEWAY_JWT_SECRET === DEMO_GATEWAY_JWT_SECRET, realFunds.chains),
    demo(
      "ETH_OPERATOR_SEED",
      strip0x(e.ETH_OPERATOR_SEED) === strip0x(DEMO_ETH_OPERATOR_SEED),
      realFunds.ethereum,
    ),
    demo(
      "ETH_KEY_ENCRYPTION_KEY",
      strip0x(e.ETH_KEY_ENCRYPTION_KEY) === strip0x(DEMO_ETH_KEY_ENCRYPTION_KEY),
      realFunds.ethereum,
    ),
  ];
  for (const [name, message] of problems)
    if (message) ctx.addIssue({ code: "custom", path: [name], message });
})
  .superRefine(reapAfterDeadline)
  .superRefine((e, ctx) => {
    if (e.CHAIN_RESET_POLICY === "reindex" && e.NETWORK === "mainnet")
      ctx.addIssue({
        code: "custom",
        path: ["CHAIN_RESET_POLICY"],
        message: "reindex is refused on mainnet: a node serving another chain is an operator's decision",
      });
  })
  .transform((e) => ({
    port: e.CONTROL_PLANE_PORT,
    host: e.CONTROL_PLANE_HOST,
    workerPort: e.WORKER_PORT,
    areas: e.CONTROL_PLANE_AREAS,
    ...ConnectionConfig.out.parse(e),
    databaseReplicaUrls: replicaUrls(e.DATABASE_REPLICA_URLS),
    network: e.NETWORK,
    chainResetPolicy: e.CHAIN_RESET_POLICY,
    jsonBodyLimit: e.JSON_BODY_LIMIT,
    trustProxy: e.TRUST_PROXY,
    argon2: {
      memoryCost: e.ARGON2_MEMORY_KIB,
      timeCost: e.ARGON2_ITERATIONS,
      concurrency: e.ARGON2_CONCURRENCY,
    },
    apiKeyRequestsPerMinute: e.API_KEY_REQUESTS_PER_MINUTE,
    apiKeysPerOrganisation: e.API_KEYS_PER_ORGANISATION,
    abuse: {
      windowSeconds: e.ABUSE_WINDOW_SECONDS,
      signupPerIp: e.SIGNUP_LIMIT_PER_IP,
      signupPerEmail: e.SIGNUP_LIMIT_PER_EMAIL,
      authFailuresPerIp: e.AUTH_FAILURE_LIMIT_PER_IP,
      authFailuresPerEmail: e.AUTH_FAILURE_LIMIT_PER_EMAIL,
    },
    /** Secret: never log it. */
    metricsToken: e.METRICS_TOKEN,
    gatewayAccount: GatewayAccountConfig.out.parse(e),
    settlement: { ...SettlementConfig.out.parse(e), ttlSeconds: e.IDEMPOTENCY_TTL_SECONDS },
    // An area's transform only reads the variables this schema has already parsed.
    dashboard: DashboardConfig.out.parse(e),
    eth: {
      network: ethNetworkOf(e),
      /** Hex without 0x. Secret: never log or return it. */
      operatorSeed: strip0x(e.ETH_OPERATOR_SEED),
      /** Hex without 0x. Secret. */
      keyEncryptionKey: strip0x(e.ETH_KEY_ENCRYPTION_KEY),
      beaconUrl: e.ETH_BEACON_URL,
      beaconTimeoutMs: e.ETH_BEACON_TIMEOUT_MS,
      provisionQuota: e.ETH_PROVISION_QUOTA,
      exitSigningPerMinute: e.ETH_EXIT_SIGNING_PER_MINUTE,
      depositContract: e.ETH_DEPOSIT_CONTRACT,
      batchDepositor: e.ETH_BATCH_DEPOSITOR,
    },
    solana: SolanaStakeConfig.out.parse(e),
    hyperliquid: HyperliquidConfig.out.parse(e),
    nodeResponseMaxBytes: e.NODE_RESPONSE_MAX_BYTES,
    sui: SuiRewardsConfig.out.parse(e),
    polygon: PolygonRewardsConfig.out.parse(e),
    beaconData: BeaconDataConfig.out.parse(e),
    webhooks: WebhooksConfig.out.parse(e),
    partitions: PartitionsConfig.out.parse(e),
  }));

export type Config = z.output<typeof ControlPlaneConfig>;

/** Parses the environment once (main.ts, worker.ts); every problem is reported as `VAR: message`. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Readonly<Config> {
  return deepFreeze(parseEnv(ControlPlaneConfig, env));
}
