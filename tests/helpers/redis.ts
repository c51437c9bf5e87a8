import { randomBytes } from "node:crypto";
import { createRedis, scanKeys } from "@stake/db/redis/client";

export function testRedisUrl(): string {
  return process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
}

/**
 * The tests' Redis: a cluster when the cluster lane runs them (TEST_REDIS_CLUSTER_NODES, tests/run.ts),
 * else the one server at TEST_REDIS_URL.
 */
export function testRedisTarget(): { redisUrl: string; redisClusterNodes: string[] } {
  const nodes = process.env.TEST_REDIS_CLUSTER_NODES;
  return { redisUrl: testRedisUrl(), redisClusterNodes: nodes ? nodes.split(",") : [] };
}

/** The environment variables that point a process (or a config loaded in-process) at the tests' Redis. */
export function testRedisEnv(): Record<string, string> {
  const t = testRedisTarget();
  return { REDIS_URL: t.redisUrl, REDIS_CLUSTER_NODES: t.redisClusterNodes.join(",") };
}

/** A Redis client plus a key prefix of its own, so test files never see each other's (or a developer's) keys. */
export function createTestRedis() {
  const target = testRedisTarget();
  const redis = createRedis(target, { name: "tests" });
  const prefix = `test:${randomBytes(4).toString("hex")}:`;
  return {
    url: target.redisUrl,
    target,
    redis,
    prefix,
    /** Deletes every key under the prefix, then disconnects. */
    async cleanup() {
      // One DEL per key: on a cluster the keys of one DEL must share a slot.
      await Promise.all((await scanKeys(redis, `${prefix}*`)).map((key) => redis.del(key)));
      await redis.quit();
    },
  };
}
