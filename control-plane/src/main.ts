import type { Server } from "node:http";
import { createDb, createReadDb } from "@stake/db/client";
import { loadOrExit } from "@stake/db/env";
import { createRedis } from "@stake/db/redis/client";
import { createApp } from "./app.ts";
import { compose } from "./compose.ts";
import { type Config, loadConfig } from "./config.ts";
import { preparePages } from "./http/page-bundle.ts";
import { createLogger, type Logger } from "./log.ts";

/** Composition root: config → logger → db → redis → app. Returns a handle that drains and closes. */
export async function start(options: { config: Readonly<Config>; logger: Logger }) {
  const { config, logger } = options;
  const pg = createDb(config.databaseUrl, { max: config.databasePoolSize, applicationName: "control-plane" });
  const replicas = createReadDb(pg.db, config.databaseReplicaUrls, {
    max: config.databasePoolSize,
    applicationName: "control-plane-reads",
  });
  const redis = createRedis(config, { name: "control-plane", logger });
  const root = await compose({ config, logger, db: pg.db, reads: replicas.reads, redis });
  const app = await createApp({ config, logger, db: pg.db, redis, root });
  await preparePages();
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(config.port, config.host, () => resolve(s));
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  logger.info({ port }, "control plane listening");
  return {
    port,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.allSettled([pg.close(), replicas.close(), redis.quit()]);
    },
  };
}

if (process.argv[1] === import.meta.filename) {
  const config = loadOrExit(() => loadConfig());
  const logger = createLogger({ level: config.logLevel, service: "control-plane" });
  const handle = await start({ config, logger });
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    process.once(signal, async () => {
      logger.info({ signal }, "draining");
      await handle.close();
      process.exit(0);
    });
  }
}
