import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { AppError } from "../../errors.ts";

/**
 * Which delegators outside every scope the Sui worker follows (docs/architecture.md §11): an address an
 * organisation queried within `expiryMs`, at most `perOrganisation` of them per organisation. Each query
 * renews the address; one not queried for `expiryMs` is no longer synced.
 */
export function createSuiFollows(deps: {
  redis: Redis;
  keys: RedisKeys;
  perOrganisation: number;
  expiryMs: number;
}) {
  const { redis } = deps;
  const { suiFollowsOf, suiFollowed } = deps.keys.tenancy;
  return {
    /**
     * Records that `organisationId` queried `address`; throws SUI_FOLLOW_LIMIT_REACHED when that would make
     * it follow more than its cap. Answers whether the worker was already following the address.
     */
    async follow(organisationId: string, address: string): Promise<{ alreadyFollowed: boolean }> {
      const now = Date.now();
      const own = suiFollowsOf(organisationId);
      const [, , added, count, lastQueried] = (await redis
        .multi()
        .zremrangebyscore(own, "-inf", now - deps.expiryMs)
        .pexpire(own, deps.expiryMs)
        .zadd(own, "NX", now, address)
        .zcard(own)
        .zscore(suiFollowed, address)
        .exec())!.map(([err, v]) => {
        if (err) throw err;
        return v;
      });
      // Past the cap the address is taken back out: concurrent queries may refuse one too many, never
      // follow one too many.
      if (Number(added) === 1 && Number(count) > deps.perOrganisation) {
        await redis.zrem(own, address);
        throw new AppError(
          "SUI_FOLLOW_LIMIT_REACHED",
          `The organisation already follows ${deps.perOrganisation} Sui delegators outside its scope (each for ${Math.round(deps.expiryMs / 86_400_000)} days after its last query); add the address to the organisation's sui scope or wait for one to expire`,
        );
      }
      await redis.multi().zadd(own, now, address).zadd(suiFollowed, "GT", now, address).exec();
      return { alreadyFollowed: lastQueried !== null && Number(lastQueried) > now - deps.expiryMs };
    },
    /** The addresses queried within the expiry, the ones past it dropped. */
    async recent(): Promise<string[]> {
      const since = Date.now() - deps.expiryMs;
      await redis.zremrangebyscore(suiFollowed, "-inf", since);
      return redis.zrangebyscore(suiFollowed, since, "+inf");
    },
  };
}

export type SuiFollows = ReturnType<typeof createSuiFollows>;
