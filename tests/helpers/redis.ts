import { randomBytes } from "node:crypto";
import { createRedis } from "@stake/db/redis/client";

export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

/** A Redis client plus a key prefix of its own, so test files never see each other's (or a developer's) keys. */
export function createTestRedis() {
  const url = testRedisUrl();
  const redis = createRedis(url, { name: "tests" });
  const prefix = `test:${randomBytes(4).toString("hex")}:`;
  return {
    url,
    redis,
    prefix,
    /** Deletes every key under the prefix, then disconnects. */
    async cleanup() {
      let cursor = "0";
      do {
        const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== "0");
      await redis.quit();
    },
  };
}
