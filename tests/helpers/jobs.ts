import { createRedis } from "@stake/db/redis/client";
import { compose, composeArea } from "../../control-plane/src/compose.ts";
import type { AreaName, Config } from "../../control-plane/src/config.ts";
import { createCore } from "../../control-plane/src/core.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import type { ControlPlaneHarness } from "./control-plane.ts";

const rootDeps = (h: ControlPlaneHarness, config: Readonly<Config>) => ({
  config,
  logger: createLogger({ level: "silent", service: "test" }),
  db: h.db,
  redis: h.redis,
});

/** The composition root over the harness's database and Redis, with `config` (the harness's by default). */
export function rootOf(h: ControlPlaneHarness, config: Readonly<Config> = h.config) {
  return compose(rootDeps(h, config));
}

/** One area's parts (its follower, its indexer's deps…) over the harness's database and Redis. */
export function areaOf<K extends AreaName>(
  h: ControlPlaneHarness,
  name: K,
  config: Readonly<Config> = h.config,
) {
  return composeArea(createCore(rootDeps(h, config)), name);
}

/**
 * The named worker jobs, in-process, started as worker.ts starts them (on their own queue connection).
 * Returns a handle that closes them.
 */
export async function startJobs(
  h: ControlPlaneHarness,
  names: string[],
  options: { config?: Readonly<Config>; provisionConcurrency?: number } = {},
) {
  const connection = createRedis(h.config, { name: "test-worker", forQueues: true });
  const jobs = (await rootOf(h, options.config))
    .jobs(connection, options)
    .filter((j) => names.includes(j.name));
  if (jobs.length !== names.length) {
    // An open connection would keep the file's process alive until the runner's timeout.
    connection.disconnect();
    const areas = (options.config ?? h.config).areas.join(", ");
    throw new Error(`no job among ${names.join(", ")} in the areas composed (CONTROL_PLANE_AREAS: ${areas})`);
  }
  await Promise.all(jobs.map((j) => j.start()));
  return {
    isRunning: () => jobs.every((j) => j.isRunning()),
    async close() {
      await Promise.allSettled(jobs.map((j) => j.close()));
      await connection.quit();
    },
  };
}
