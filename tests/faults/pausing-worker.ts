import { createDb } from "@stake/db/client";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { loadConfig } from "../../control-plane/src/config.ts";
import { startSettlementLoop } from "../../control-plane/src/features/gateway-settlement/loop.ts";
import { createLogger } from "../../control-plane/src/log.ts";

/**
 * The worker's settlement loop as its own process, stopping for good after the step named by
 * PAUSE_AFTER_STEP and saying so (`PAUSED <step>`), so a fault test can SIGKILL it exactly there.
 */
const config = loadConfig();
const pauseAfter = process.env.PAUSE_AFTER_STEP;
const pg = createDb(config.databaseUrl, { max: 2, applicationName: "pausing-worker" });
startSettlementLoop({
  db: pg.db,
  redis: createRedis(config, { name: "pausing-worker" }),
  keys: createRedisKeys(config.redisPrefix),
  intervalMs: config.settlement.intervalMs,
  reapAfterMs: config.settlement.reapAfterMs,
  ttlSeconds: config.settlement.ttlSeconds,
  leaseMs: config.settlement.leaseMs,
  logger: createLogger({ level: config.logLevel, service: "pausing-worker" }),
  async afterStep(step) {
    if (step !== pauseAfter) return;
    process.stdout.write(`PAUSED ${step}\n`);
    await new Promise(() => {});
  },
});
process.stdout.write("READY -\n");
