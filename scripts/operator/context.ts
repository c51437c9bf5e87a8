import {
  type AccountOperatorService,
  ControlPlaneEnv,
  createAccountOperatorService,
  createGatewayOperatorService,
  DEMO_ETH_KEY_ENCRYPTION_KEY,
  type GatewayOperatorService,
} from "@stake/control-plane/operator";
import { createDb, type Db } from "@stake/db/client";
import {
  DATABASE_URL,
  DEMO_MODE,
  demoSecretProblem,
  GATEWAY_REQUEST_DEADLINE_MS,
  parseEnv,
  REDIS_CLUSTER_NODES,
  REDIS_PREFIX,
  REDIS_URL,
  reapAfterDeadline,
} from "@stake/db/env";
import { createRedis, type Redis } from "@stake/db/redis/client";
import { createRedisKeys, type RedisKeys } from "@stake/db/redis/keys";
import { GatewayEnv } from "@stake/gateway/config";
import { z } from "zod";

/**
 * Every variable the operator CLI reads, with the definitions of the processes it acts for: the TTL the
 * gateway keeps reservations with, the worker's reap age, the control plane's key-encryption key. Only
 * the connection URLs default to the local development services, so commands work without a .env.
 */
export const OperatorEnv = z.object({
  DATABASE_URL: DATABASE_URL.default("postgres://postgres@127.0.0.1:5432/staking"),
  REDIS_URL: REDIS_URL.default("redis://127.0.0.1:6379"),
  REDIS_CLUSTER_NODES,
  REDIS_PREFIX,
  IDEMPOTENCY_TTL_SECONDS: GatewayEnv.shape.IDEMPOTENCY_TTL_SECONDS,
  RESERVATION_REAP_AFTER_MS: ControlPlaneEnv.shape.RESERVATION_REAP_AFTER_MS,
  GATEWAY_REQUEST_DEADLINE_MS,
  ETH_KEY_ENCRYPTION_KEY: ControlPlaneEnv.shape.ETH_KEY_ENCRYPTION_KEY,
  DEMO_MODE,
  KEYSTORE_PASSWORD: z
    .string()
    .min(1)
    .optional()
    .describe("Password of exported EIP-2335 keystores when `keystores export` gets no --password-file."),
});

const strip0x = (hex: string) => hex.replace(/^0x/, "").toLowerCase();

/** The operator CLI's configuration: its variables, the reap rule the worker follows, the object it reads. */
export const OperatorConfig = OperatorEnv.superRefine(reapAfterDeadline) // `ledger settle` reaps like the worker.
  .transform((e) => ({
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisClusterNodes: e.REDIS_CLUSTER_NODES ?? [],
    redisPrefix: e.REDIS_PREFIX,
    idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
    reapAfterMs: e.RESERVATION_REAP_AFTER_MS,
    /** Hex without 0x. Secret: never print it. */
    keyEncryptionKey: strip0x(e.ETH_KEY_ENCRYPTION_KEY),
    /**
     * Why `keyEncryptionKey` may not be used (the public demo key outside demo mode), checked by its one
     * user: only `keystores export` needs the key, so every other command runs. The CLI does not know the
     * deployment's networks, so only demo mode lets the demo key through.
     */
    keyEncryptionKeyRefused: demoSecretProblem({
      isDemo: strip0x(e.ETH_KEY_ENCRYPTION_KEY) === strip0x(DEMO_ETH_KEY_ENCRYPTION_KEY),
      demoMode: e.DEMO_MODE,
      realFunds: false,
    }),
    /** Secret. */
    keystorePassword: e.KEYSTORE_PASSWORD,
  }));

export type OperatorConfig = z.output<typeof OperatorConfig>;

export function loadOperatorConfig(env: Record<string, string | undefined>): Readonly<OperatorConfig> {
  return Object.freeze(parseEnv(OperatorConfig, env));
}

/** What every operator command gets: its configuration, connections from it, and the output mode. */
export interface OperatorContext {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  /** Organisations and their staking keys. */
  accounts: AccountOperatorService;
  /** Every change to gateway state (providers, rate, funding, keys) goes through this. */
  gateway: GatewayOperatorService;
  config: Readonly<OperatorConfig>;
  /** True with --json: commands return data and the runner prints it as JSON. */
  json: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** One CLI command: `usage` is shown in help; `run` returns data (printed as JSON with --json) and a human line. */
export interface Command {
  usage: string;
  summary: string;
  /** Flags that take a value (`--label L`); every other flag is boolean. */
  valueFlags?: readonly string[];
  /** Flags without a value (`--once`); any flag neither lists is refused, as are extra arguments. */
  booleanFlags?: readonly string[];
  /** A non-zero `exitCode` is the process's (a check that found differences). */
  run(ctx: OperatorContext, args: ParsedArgs): Promise<{ data: unknown; text: string; exitCode?: number }>;
}

export class UsageError extends Error {}

export function createOperatorContext(config: Readonly<OperatorConfig>, json: boolean) {
  const pg = createDb(config.databaseUrl, { max: 2, applicationName: "operator" });
  // A one-shot command: a Redis that does not answer fails the command (one line, main.ts) rather than
  // printing each reconnect attempt.
  const redis = createRedis(config, { name: "operator", logger: { warn: () => {} } });
  const keys = createRedisKeys(config.redisPrefix);
  const ctx: OperatorContext = {
    db: pg.db,
    redis,
    keys,
    accounts: createAccountOperatorService({ db: pg.db }),
    gateway: createGatewayOperatorService({ db: pg.db, redis, keys }),
    config,
    json,
  };
  return { ctx, close: () => Promise.allSettled([pg.close(), redis.quit()]) };
}

export function requirePositional(args: ParsedArgs, index: number, name: string): string {
  const v = args.positionals[index];
  if (!v) throw new UsageError(`missing <${name}>`);
  return v;
}

/** The value of `--name V`; a value flag given bare is a usage error. */
export function flag(args: Pick<ParsedArgs, "flags">, name: string): string | undefined {
  const v = args.flags[name];
  // `--user --json`: the parser hands the next flag over as the value.
  if (v === true || (typeof v === "string" && v.startsWith("--")))
    throw new UsageError(`--${name} needs a value`);
  return v === false ? undefined : v;
}

/**
 * Refuses what a command would otherwise ignore: a flag it does not take (`--lable`) and arguments beyond
 * the `<placeholders>` of its usage.
 */
export function checkArgs(command: Command, args: ParsedArgs): void {
  const known = new Set(["json", "help", ...(command.valueFlags ?? []), ...(command.booleanFlags ?? [])]);
  const unknown = Object.keys(args.flags).filter((f) => !known.has(f));
  if (unknown.length) throw new UsageError(`unknown option ${unknown.map((f) => `--${f}`).join(", ")}`);
  const words = command.usage.split(" ");
  const expected = words.filter((w, i) => /^<.+>$/.test(w) && !/^\[?--/.test(words[i - 1] ?? "")).length;
  const extra = args.positionals.slice(expected);
  if (extra.length) throw new UsageError(`unexpected argument ${extra.join(" ")}`);
}
