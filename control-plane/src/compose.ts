import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { createJwt } from "./auth/jwt.ts";
import { createPasswordHasher } from "./auth/password.ts";
import type { BackgroundJob, QueueDeps } from "./background-job.ts";
import type { AreaName, Config } from "./config.ts";
import { createAccountsRepo } from "./features/account-v2/repo.ts";
import { createAccountService } from "./features/account-v2/service.ts";
import { createAbuseLimits } from "./http/abuse-limits.ts";
import type { Area } from "./http/route.ts";
import type { Logger } from "./log.ts";

export interface RootDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** Reads of the data endpoints (a read replica, `createReadDb`); the primary `db` when not given. */
  reads?: Db;
  /** The process's Redis connection (in the worker: settlement's, which fails a pass rather than waiting). */
  redis: Redis;
}

/**
 * Each area's composition (`areas/<area>.ts`: its node clients, repositories, service, followers and jobs),
 * imported only when the area is composed. A process, or a test, that serves a few areas loads only their
 * modules: viem, `@mysten/sui`, blst and BullMQ cost seconds of start-up each time they load (docs/testing.md).
 */
const AREAS = {
  "account-v2": () => import("./areas/account-v2.ts"),
  "account-v1": () => import("./areas/account-v1.ts"),
  "hyperliquid-delegation": () => import("./areas/hyperliquid-delegation.ts"),
  "solana-stake": () => import("./areas/solana-stake.ts"),
  "beacon-provisioning": () => import("./areas/beacon-provisioning.ts"),
  "sui-rewards": () => import("./areas/sui-rewards.ts"),
  "polygon-rewards": () => import("./areas/polygon-rewards.ts"),
  "beacon-data": () => import("./areas/beacon-data.ts"),
  "gateway-account": () => import("./areas/gateway-account.ts"),
  "gateway-settlement": () => import("./areas/gateway-settlement.ts"),
  dashboard: () => import("./areas/dashboard.ts"),
  webhooks: () => import("./areas/webhooks.ts"),
  partitions: () => import("./areas/partitions.ts"),
  statements: () => import("./areas/statements.ts"),
} satisfies Record<AreaName, () => Promise<{ composeArea(core: Core): AreaParts }>>;

/** What an area hands the processes: its routes (API), its jobs (worker), and whatever its tests drive. */
export interface AreaParts {
  /** One route group per authentication and error format (webhooks has one for each side). */
  routes?: Area[];
  jobs?: (queues: QueueDeps, options: JobOptions) => BackgroundJob[];
}

export interface JobOptions {
  provisionConcurrency?: number;
}

export type PartsOf<K extends AreaName> = ReturnType<Awaited<ReturnType<(typeof AREAS)[K]>>["composeArea"]>;

/** What every area shares: the accounts (every staking area authenticates through them), hashing, limits. */
export function createCore(deps: RootDeps) {
  const { config, db, redis } = deps;
  const keys = createRedisKeys(config.redisPrefix);
  const passwords = createPasswordHasher(config.argon2);
  const limits = createAbuseLimits({ redis, keys, config });
  const accountsRepo = createAccountsRepo(db);
  return {
    ...deps,
    reads: deps.reads ?? db,
    keys,
    queuePrefix: keys.queuePrefix,
    passwords,
    limits,
    accountsRepo,
    accounts: createAccountService({
      accounts: accountsRepo,
      passwords,
      limits,
      maxActiveKeys: config.apiKeysPerOrganisation,
    }),
    jwt: createJwt({
      secret: config.gatewayAccount.jwtSecret,
      issuer: "stake-gateway-account",
      audience: "stake-gateway-account-api",
      ttlSeconds: config.gatewayAccount.jwtTtlSeconds,
    }),
  };
}

export type Core = ReturnType<typeof createCore>;

/** One area composed over `core` (its module loaded now). */
export async function composeArea<K extends AreaName>(core: Core, name: K): Promise<PartsOf<K>> {
  const module = await AREAS[name]();
  return module.composeArea(core) as PartsOf<K>;
}

/**
 * The one composition root (docs/style.md §2): the areas of `config.areas` (all by default), built once
 * from configuration. The API process (app.ts) takes their routes; the worker process (worker.ts) takes
 * `jobs`, which only then opens queue workers.
 */
export async function compose(deps: RootDeps) {
  const core = createCore(deps);
  const names = deps.config.areas;
  const parts: AreaParts[] = await Promise.all(names.map((name) => composeArea(core, name)));

  /** The worker's jobs, on a queue connection (`createRedis(url, {forQueues: true})`). */
  function jobs(queues: Redis, options: JobOptions = {}): BackgroundJob[] {
    const q = { connection: queues, prefix: core.queuePrefix, logger: deps.logger };
    return parts.flatMap((p) => p.jobs?.(q, options) ?? []);
  }

  return { core, routes: parts.flatMap((p) => p.routes ?? []), jobs };
}

export type Root = Awaited<ReturnType<typeof compose>>;
