import type { RedisKeys } from "@stake/db/redis/keys";
import type { Redis } from "ioredis";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";

/**
 * Abuse limits kept in Redis so they hold across API replicas: sign-ups and failed Basic-auth attempts,
 * each per e-mail and per client address. A blocked caller gets 429 with Retry-After before any password
 * is checked, so a blocked attacker learns nothing.
 */
export function createAbuseLimits(deps: { redis: Redis; keys: RedisKeys; config: Readonly<Config> }) {
  const { windowSeconds: duration, ...limits } = deps.config.abuse;
  const limiter = (name: string, points: number) =>
    new RateLimiterRedis({ storeClient: deps.redis, keyPrefix: deps.keys.rateLimit(name), points, duration });
  const signupIp = limiter("signup-ip", limits.signupPerIp);
  const signupEmail = limiter("signup-email", limits.signupPerEmail);
  const failIp = limiter("authfail-ip", limits.authFailuresPerIp);
  const failEmail = limiter("authfail-email", limits.authFailuresPerEmail);

  return {
    /** Counts one sign-up attempt; throws RATE_LIMITED past either limit. */
    async consumeSignup(ip: string, email: string): Promise<void> {
      await consume([signupIp, ip], [signupEmail, email]);
    },
    /** Throws RATE_LIMITED when either failed-auth limit is already exhausted. */
    async assertAuthAllowed(ip: string, email: string): Promise<void> {
      const [a, b] = await Promise.all([failIp.get(ip), failEmail.get(email)]);
      const blocked = [a, b].filter((r): r is RateLimiterRes => !!r && r.remainingPoints <= 0);
      if (blocked.length) throw tooMany(Math.max(...blocked.map((r) => r.msBeforeNext)));
    },
    async recordAuthFailure(ip: string, email: string): Promise<void> {
      await Promise.allSettled([failIp.penalty(ip, 1), failEmail.penalty(email, 1)]);
    },
  };
}

export type AbuseLimits = ReturnType<typeof createAbuseLimits>;

async function consume(...pairs: Array<[RateLimiterRedis, string]>): Promise<void> {
  const results = await Promise.allSettled(pairs.map(([l, key]) => l.consume(key)));
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (!rejected.length) return;
  const reasons = rejected.map((r) => r.reason);
  const fault = reasons.find((r) => !(r instanceof RateLimiterRes));
  if (fault) throw fault;
  throw tooMany(Math.max(...(reasons as RateLimiterRes[]).map((r) => r.msBeforeNext)));
}

function tooMany(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError("RATE_LIMITED", `Too many attempts; retry in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}
