import { createDb } from "@stake/db/client";
import { loadOrExit } from "@stake/db/env";
import { createRedis } from "@stake/db/redis/client";
import { sql } from "drizzle-orm";
import { compose } from "./compose.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./log.ts";
import { serveWorkerHealth } from "./worker-health.ts";

/** Background-job process, run beside the HTTP process: the jobs of every area it runs (`CONTROL_PLANE_AREAS`), from the composition root. */
const config = loadOrExit(() => loadConfig());
const logger = createLogger({ level: config.logLevel, service: "control-plane-worker" });
const pg = createDb(config.databaseUrl, { max: 4, applicationName: "control-plane-worker" });
const queues = createRedis(config, { name: "control-plane-worker", forQueues: true, logger });
// Its own connection: a queue connection retries forever, while settlement should fail and retry a pass.
const redis = createRedis(config, { name: "control-plane-settlement", logger });
const jobs = (await compose({ config, logger, db: pg.db, redis })).jobs(queues);
await Promise.all(jobs.map((j) => j.start()));
const health = serveWorkerHealth({
  jobs,
  checks: { postgres: () => pg.db.execute(sql`select 1`), redis: () => queues.ping() },
  port: config.workerPort,
  host: config.host,
});
logger.info({ port: config.workerPort, jobs: jobs.map((j) => j.name) }, "worker running");
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, "draining");
    health.close();
    await Promise.allSettled(jobs.map((j) => j.close()));
    await Promise.allSettled([pg.close(), queues.quit(), redis.quit()]);
    process.exit(0);
  });
}
