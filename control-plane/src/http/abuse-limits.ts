import { rateLimitPolicy, rateLimitState } from "@stake/db/ratelimit-fields";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { Config } from "../config.ts";
import { AppError } from "../errors.ts";

/** The longest a pair of client address and e-mail is made to wait between two password attempts. */
const MAX_DELAY_SECONDS = 900;

/**
 * Abuse limits kept in Redis so they hold across API replicas: sign-ups per e-mail and per client address,
 * and password attempts. Password guessing is slowed down, not locked out: per (client address, e-mail)
 * pair, one attempt at a time, and after `authFailuresPerEmail` failures each further attempt must wait
 * 1, 2, 4, … s (at most 15 min) after the last failure; the right password from another address is never
 * held up by someone else's failures. Failures per client address are capped too. A caller told to wait
 * gets 429 with Retry-After before any password is checked, so it learns nothing.
 */
export function createAbuseLimits(deps: { redis: Redis; keys: RedisKeys; config: Readonly<Config> }) {
  const { windowSeconds: duration, ...limits } = deps.config.abuse;
  const limiter = (name: string, points: number) =>
    new RateLimiterRedis({ storeClient: deps.redis, keyPrefix: deps.keys.rateLimit(name), points, duration });
  const signupIp = limiter("signup-ip", limits.signupPerIp);
  const signupEmail = limiter("signup-email", limits.signupPerEmail);
  const failIp = limiter("authfail-ip", limits.authFailuresPerIp);

  return {
    /** Counts one sign-up attempt; throws RATE_LIMITED past either limit. */
    async consumeSignup(ip: string, email: string): Promise<void> {
      await consume([signupIp, ip], [signupEmail, email]);
    },
    /**
     * Runs one password check under the limits and returns its result. Atomic per pair: a concurrent
     * attempt with the same address and e-mail waits its turn as a 429, so a burst cannot slip extra
     * guesses past the count.
     */
    async guardPasswordCheck(ip: string, email: string, check: () => Promise<boolean>): Promise<boolean> {
      const pair = deps.keys.rateLimit(`authpair:${ip}:${email}`);
      const lock = `${pair}:lock`;
      if ((await deps.redis.set(lock, "1", "PX", 10_000, "NX")) === null) throw tooMany(1000);
      try {
        const [failures, lastAt] = await deps.redis.hmget(pair, "failures", "at");
        const wait =
          delayMs(Number(failures ?? 0), limits.authFailuresPerEmail) - (Date.now() - Number(lastAt ?? 0));
        if (wait > 0) throw tooMany(wait);
        const ipState = await failIp.get(ip);
        if (ipState && ipState.remainingPoints <= 0) throw tooMany(ipState.msBeforeNext);
        if (await check()) {
          await deps.redis.del(pair);
          return true;
        }
        await deps.redis
          .multi()
          .hincrby(pair, "failures", 1)
          .hset(pair, "at", Date.now())
          .expire(pair, duration)
          .exec();
        await failIp.penalty(ip, 1).catch(() => {});
        return false;
      } finally {
        await deps.redis.del(lock);
      }
    },
  };
}

export type AbuseLimits = ReturnType<typeof createAbuseLimits>;

/**
 * Requests per API key per minute under one named policy (the staking areas share `api-key`; Solana's
 * stake-account area, whose request can cost many RPC calls, has its own). Answers the IETF rate-limit
 * fields of the request (draft-ietf-httpapi-ratelimit-headers, structured-field form: `RateLimit-Policy:
 * "name";q=<quota>;w=<window s>` and `RateLimit: "name";r=<remaining>;t=<s until reset>`); past the quota
 * throws RATE_LIMITED carrying them and `Retry-After`.
 */
export function createKeyRateLimit(deps: { redis: Redis; keys: RedisKeys; name: string; perMinute: number }) {
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    keyPrefix: deps.keys.rateLimit(`key:${deps.name}`),
    points: deps.perMinute,
    duration: 60,
  });
  const policy = rateLimitPolicy(deps.name, deps.perMinute, 60_000);
  const fields = (r: RateLimiterRes) => ({
    "RateLimit-Policy": policy,
    RateLimit: rateLimitState(deps.name, r.remainingPoints, r.msBeforeNext),
  });
  return async (keyId: string): Promise<Record<string, string>> => {
    try {
      return fields(await limiter.consume(keyId));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const limited = tooMany(err.msBeforeNext);
      throw new AppError(limited.code, limited.message, { headers: { ...limited.headers, ...fields(err) } });
    }
  };
}

async function consume(...pairs: Array<[RateLimiterRedis, string]>): Promise<void> {
  const results = await Promise.allSettled(pairs.map(([l, key]) => l.consume(key)));
  const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
  if (!rejected.length) return;
  const reasons = rejected.map((r) => r.reason);
  const fault = reasons.find((r) => !(r instanceof RateLimiterRes));
  if (fault) throw fault;
  throw tooMany(Math.max(...(reasons as RateLimiterRes[]).map((r) => r.msBeforeNext)));
}

/** The wait after `failures` failed attempts of one pair: none for the first `free`, then 1, 2, 4, … s. */
export function delayMs(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(2 ** (failures - free), MAX_DELAY_SECONDS) * 1000;
}

function tooMany(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError("RATE_LIMITED", `Too many attempts; retry in ${seconds} s`, {
    headers: { "Retry-After": String(seconds) },
  });
}
