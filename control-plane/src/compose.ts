import type { Redis } from "@stake/db/redis/client";
import type { BackgroundJob, QueueDeps } from "./background-job.ts";
import type { AreaName } from "./config.ts";
import { type Core, createCore, type RootDeps } from "./core.ts";
import type { Area } from "./http/route.ts";

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
  console: () => import("./areas/console.ts"),
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
