import { randomBytes } from "node:crypto";
import { createApp } from "../../control-plane/src/app.ts";
import { type Config, loadConfig } from "../../control-plane/src/config.ts";
import { createExampleRecorder } from "../../control-plane/src/http/examples.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { createTestDatabase } from "./pg.ts";
import { createTestRedis, testRedisEnv } from "./redis.ts";

/**
 * Under `npm run openapi:examples` (tests/openapi-examples.ts) every app the tests build records its
 * exchanges as the OpenAPI document's examples; one recorder per test process, off otherwise.
 */
const examplesDir = process.env.OPENAPI_EXAMPLES_OUT;
export const recordExamples = examplesDir ? createExampleRecorder(examplesDir) : undefined;

/**
 * Boots the real control-plane app (real Postgres, real Redis) for supertest. `env` overrides config
 * variables, e.g. a chain node URL or a tighter rate limit.
 */
export async function createControlPlaneHarness(env: Record<string, string> = {}) {
  const database = await createTestDatabase();
  const redis = createTestRedis();
  const config: Readonly<Config> = loadConfig({
    DATABASE_URL: database.url,
    ...testRedisEnv(),
    REDIS_PREFIX: redis.prefix,
    LOG_LEVEL: "silent",
    // Cheap hashing keeps tests fast; production defaults are in config.ts.
    ARGON2_MEMORY_KIB: "8192",
    ARGON2_ITERATIONS: "1",
    // Fresh secrets per harness: config refuses the public demo values when NETWORK=mainnet.
    ETH_OPERATOR_SEED: randomBytes(32).toString("hex"),
    ETH_KEY_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    GATEWAY_JWT_SECRET: randomBytes(32).toString("hex"),
    ...env,
  });
  const logger = createLogger({ level: config.logLevel, service: "control-plane" });
  const app = await createApp({
    config,
    logger,
    db: database.db,
    redis: redis.redis,
    checkResponses: true,
    recordExamples,
  });
  return {
    app,
    config,
    db: database.db,
    sql: database.sql,
    redis: redis.redis,
    async close() {
      await redis.cleanup();
      await database.drop();
    },
  };
}

export type ControlPlaneHarness = Awaited<ReturnType<typeof createControlPlaneHarness>>;
