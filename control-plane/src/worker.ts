import { createServer } from "node:http";
import { createDb } from "@stake/db/client";
import { loadOrExit } from "@stake/db/env";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { sql } from "drizzle-orm";
import { loadConfig } from "./config.ts";
import { startBeaconIndexWorker } from "./features/beacon-data/worker.ts";
import { createProvisionWorker } from "./features/beacon-provisioning/worker.ts";
import { startSettlementLoop } from "./features/gateway-settlement/loop.ts";
import { startPolygonSnapshotWorker } from "./features/polygon-rewards/worker.ts";
import { startSuiIndexWorker } from "./features/sui-rewards/worker.ts";
import { createLogger } from "./log.ts";

/**
 * Background-job process: the beacon provisioning worker (BullMQ) and the gateway settlement loop. Run
 * beside the HTTP process.
 */
const config = loadOrExit(() => loadConfig());
const logger = createLogger({ level: config.logLevel, service: "control-plane-worker" });
const pg = createDb(config.databaseUrl, { max: 4, applicationName: "control-plane-worker" });
const connection = createRedis(config.redisUrl, { name: "control-plane-worker", forQueues: true, logger });
const worker = createProvisionWorker({ db: pg.db, connection, config, logger });
const sui = await startSuiIndexWorker({ db: pg.db, connection, config, logger });
const polygon = await startPolygonSnapshotWorker({ db: pg.db, connection, config, logger });
// Its own connection: a queue connection retries forever, while settlement should fail and retry a pass.
const ledgerRedis = createRedis(config.redisUrl, { name: "control-plane-settlement", logger });
const settlement = startSettlementLoop({
  db: pg.db,
  redis: ledgerRedis,
  keys: createRedisKeys(config.redisPrefix),
  intervalMs: config.settlement.intervalMs,
  reapAfterMs: config.settlement.reapAfterMs,
  ttlSeconds: config.settlement.ttlSeconds,
  logger,
});

const beaconIndexer = await startBeaconIndexWorker({ db: pg.db, connection, config, logger });

// Liveness and readiness for orchestrators and `npm start`; the worker serves nothing else.
const health = createServer(async (req, res) => {
  const send = (status: number, body: unknown) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  if (req.url === "/healthz") return send(200, { status: "ok" });
  if (req.url === "/readyz") {
    const checks = await Promise.allSettled([pg.db.execute(sql`select 1`), connection.ping()]);
    const [postgres, redis] = checks.map((c) => (c.status === "fulfilled" ? "ok" : "unreachable"));
    const ready =
      postgres === "ok" &&
      redis === "ok" &&
      worker.isRunning() &&
      settlement.isRunning() &&
      sui.worker.isRunning() &&
      polygon.worker.isRunning() &&
      beaconIndexer.isRunning();
    return send(ready ? 200 : 503, { status: ready ? "ok" : "unavailable", postgres, redis });
  }
  send(404, { error: "No such endpoint", code: "NOT_FOUND" });
});
health.listen(config.workerPort, config.host);
logger.info({ port: config.workerPort }, "provision worker and settlement loop running");
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, "draining");
    health.close();
    await Promise.allSettled([
      worker.close(),
      settlement.close(),
      sui.close(),
      polygon.close(),
      beaconIndexer.close(),
    ]);
    await Promise.allSettled([pg.close(), connection.quit(), ledgerRedis.quit()]);
    process.exit(0);
  });
}
