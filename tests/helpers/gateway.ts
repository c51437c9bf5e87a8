// The service itself, not the operator entry (which loads every area's configuration): a gateway test file
// starts faster.

import { type RedisTarget, scanKeys } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { createGatewayOperatorService } from "../../control-plane/src/features/gateway-account/operator-service.ts";
import { loadGatewayConfig } from "../../gateway/src/config.ts";
import { createGatewayLogger } from "../../gateway/src/log.ts";
import { start } from "../../gateway/src/main.ts";
import { createTestDatabase } from "./pg.ts";
import { createTestRedis } from "./redis.ts";

/** A real gateway on port 0 over the given Postgres and Redis prefix (e.g. a control-plane harness's). */
export async function startGateway(
  store: { databaseUrl: string; redisPrefix: string } & RedisTarget,
  env: Record<string, string> = {},
) {
  const config = loadGatewayConfig({
    GATEWAY_PORT: "0",
    GATEWAY_HOST: "127.0.0.1",
    DATABASE_URL: store.databaseUrl,
    REDIS_URL: store.redisUrl,
    REDIS_CLUSTER_NODES: (store.redisClusterNodes ?? []).join(","),
    REDIS_PREFIX: store.redisPrefix,
    LOG_LEVEL: "silent",
    ...env,
  });
  return start({ config, logger: createGatewayLogger(config.logLevel) });
}

/**
 * A real gateway process-in-process on port 0 over its own database and Redis prefix, plus seeding helpers
 * that write what the account API and the operator CLI would write.
 */
export async function createGatewayHarness(env: Record<string, string> = {}) {
  const database = await createTestDatabase();
  const redis = createTestRedis();
  const keys = createRedisKeys(redis.prefix);
  const gateway = await startGateway(
    { databaseUrl: database.url, ...redis.target, redisPrefix: redis.prefix },
    env,
  );

  const operator = createGatewayOperatorService({ db: database.db, redis: redis.redis, keys });

  const h = {
    url: gateway.url,
    metricsUrl: gateway.metricsUrl,
    db: database.db,
    redis: redis.redis,
    keys,
    /** What the operator CLI and the demo seed write with, cache invalidation included. */
    operator,
    invalidate: operator.invalidate,
    setRate: (usdPerCoin: string) => operator.setCoinRate(usdPerCoin),
    addProvider: (
      key: string,
      originUrl: string,
      costInUsd: string,
      status: "active" | "disabled" | "degraded" = "active",
    ) => operator.addProvider({ key, originUrl, costInUsd, status }),
    setProviderStatus: (key: string, status: "active" | "disabled" | "degraded") =>
      operator.updateProvider(key, { status }),
    /** A user with a key and (unless `party: false`) a party funded with `coins`. */
    async createAccount(options: { coins?: string; party?: boolean } = {}) {
      const a = await operator.openAccount(options);
      return { userId: a.userId, keyId: a.keyId, apiKey: a.apiKey, partyId: a.partyId };
    },
    deactivateKey: (keyId: string) => operator.deactivateKey(keyId),
    async account(partyId: string) {
      const [balance, reserved] = await redis.redis.hmget(
        keys.gateway.account(partyId),
        "balance",
        "reserved",
      );
      return { balance: BigInt(balance ?? "0"), reserved: BigInt(reserved ?? "0") };
    },
    /** All reservation records of a party (scan of its hash-tagged keys). */
    async reservations(partyId: string) {
      const found: Record<string, string>[] = [];
      for (const k of await scanKeys(redis.redis, keys.gateway.reservation(partyId, "*")))
        found.push(await redis.redis.hgetall(k));
      return found;
    },
    /** docs/architecture.md §6 invariant: reserved = Σ cost of in-flight, registered and queued reservations. */
    async checkInvariant(partyId: string) {
      const { reserved, balance } = await h.account(partyId);
      let sum = 0n;
      for (const r of await h.reservations(partyId)) {
        if (r.s === "request_in_flight" || r.s === "registered" || r.s === "queued")
          sum += BigInt(r.c ?? "0");
      }
      return { reserved, sum, balance };
    },
    async close() {
      await gateway.close();
      await redis.cleanup();
      await database.drop();
    },
  };
  return h;
}

export type GatewayHarness = Awaited<ReturnType<typeof createGatewayHarness>>;
