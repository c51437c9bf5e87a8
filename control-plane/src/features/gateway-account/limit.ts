import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { RequestHandler } from "express";
import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { AppError } from "../../errors.ts";
import { clientAddressKey } from "../../http/client-address.ts";

/** Per-client request budget kept in Redis, so it holds across API replicas. */
export function createRequestLimit(deps: {
  redis: Redis;
  keys: RedisKeys;
  points: number;
  windowSeconds: number;
}): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    keyPrefix: deps.keys.rateLimit("gateway-account"),
    points: deps.points,
    duration: deps.windowSeconds,
  });
  return async (req, _res, next) => {
    try {
      await limiter.consume(clientAddressKey(req.ip ?? "unknown"));
      next();
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) return next(err);
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      next(
        new AppError("RATE_LIMITED", "Too many requests", { headers: { "Retry-After": String(seconds) } }),
      );
    }
  };
}
