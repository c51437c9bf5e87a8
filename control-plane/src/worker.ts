import { createDb } from "@stake/db/client";
import { createRedis } from "@stake/db/redis/client";
import { type Config, loadConfig } from "./config.ts";
import { createProvisionWorker } from "./features/beacon-provisioning/worker.ts";
import { createLogger } from "./log.ts";

/** Background-job process: the beacon provisioning worker (BullMQ). Run beside the HTTP process. */
let config: Readonly<Config>;
try {
  config = loadConfig();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
const logger = createLogger({ level: config.logLevel, service: "control-plane-worker" });
const pg = createDb(config.databaseUrl, { max: 4, applicationName: "control-plane-worker" });
const connection = createRedis(config.redisUrl, { name: "control-plane-worker", forQueues: true });
const worker = createProvisionWorker({ db: pg.db, connection, config, logger });
logger.info("provision worker running");
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, "draining");
    await worker.close();
    await Promise.allSettled([pg.close(), connection.quit()]);
    process.exit(0);
  });
}
