import { randomBytes } from "node:crypto";
import { issueApiKey } from "@stake/db/api-key";
import { coinsToBaseUnits } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { createRedisKeys } from "@stake/db/redis/keys";
import { coinRates, gatewayApiKeys, gatewayUsers, parties, providers } from "@stake/db/schema/index";
import { eq } from "drizzle-orm";
import { creditParty } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { loadGatewayConfig } from "../../gateway/src/config.ts";
import { createGatewayLogger } from "../../gateway/src/log.ts";
import { start } from "../../gateway/src/main.ts";
import { createTestDatabase } from "./pg.ts";
import { createTestRedis } from "./redis.ts";

/** A real gateway on port 0 over the given Postgres and Redis prefix (e.g. a control-plane harness's). */
export async function startGateway(
  store: { databaseUrl: string; redisUrl: string; redisPrefix: string },
  env: Record<string, string> = {},
) {
  const config = loadGatewayConfig({
    GATEWAY_PORT: "0",
    GATEWAY_HOST: "127.0.0.1",
    DATABASE_URL: store.databaseUrl,
    REDIS_URL: store.redisUrl,
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
    { databaseUrl: database.url, redisUrl: redis.url, redisPrefix: redis.prefix },
    env,
  );

  const h = {
    url: gateway.url,
    db: database.db,
    redis: redis.redis,
    keys,
    /** Publishes a cache invalidation as the operator CLI and the account API do. */
    invalidate: () => redis.redis.publish(keys.gateway.invalidations, "test"),
    async setRate(usdPerCoin: string) {
      await database.db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin });
      await h.invalidate();
    },
    async addProvider(
      key: string,
      originUrl: string,
      costInUsd: string,
      status: "active" | "disabled" | "degraded" = "active",
    ) {
      await database.db
        .insert(providers)
        .values({ id: newId("provider"), key, originUrl, costInUsd, status });
      await h.invalidate();
    },
    async setProviderStatus(key: string, status: "active" | "disabled" | "degraded") {
      await database.db.update(providers).set({ status }).where(eq(providers.key, key));
      await h.invalidate();
    },
    /** A user with a key and (unless `party: false`) a party funded with `coins`. */
    async createAccount(options: { coins?: string; party?: boolean } = {}) {
      const userId = newId("gatewayUser");
      await database.db.insert(gatewayUsers).values({
        id: userId,
        email: `${userId.toLowerCase()}@example.test`,
        passwordHash: "unused",
      });
      const issued = issueApiKey("gateway");
      const keyId = newId("gatewayKey");
      await database.db
        .insert(gatewayApiKeys)
        .values({ id: keyId, userId, hash: issued.hash, start: issued.start });
      let partyId: string | null = null;
      if (options.party !== false) {
        partyId = newId("party");
        await database.db.insert(parties).values({ id: partyId, userId });
        if (options.coins) {
          await creditParty(database.db, redis.redis, keys, {
            partyId,
            amount: coinsToBaseUnits(options.coins),
            ref: `test-${randomBytes(6).toString("hex")}`,
          });
        }
      }
      return { userId, keyId, apiKey: issued.key, partyId };
    },
    async deactivateKey(keyId: string) {
      await database.db
        .update(gatewayApiKeys)
        .set({ active: false, deactivatedAt: new Date() })
        .where(eq(gatewayApiKeys.id, keyId));
      await h.invalidate();
    },
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
      let cursor = "0";
      do {
        const [next, batch] = await redis.redis.scan(
          cursor,
          "MATCH",
          `${keys.gateway.reservation(partyId, "*")}`,
          "COUNT",
          1000,
        );
        cursor = next;
        for (const k of batch) found.push(await redis.redis.hgetall(k));
      } while (cursor !== "0");
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
