import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import { invalidation } from "@stake/db/redis/invalidation";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { Jwt } from "../../auth/jwt.ts";
import type { PasswordHasher } from "../../auth/password.ts";
import { AppError } from "../../errors.ts";
import type { AbuseLimits } from "../../http/abuse-limits.ts";
import type { GatewayAccountRepo } from "./repo.ts";

/** What the gateway account's use cases (users, keys, party, history) are built from. */
export interface GatewayAccountDeps {
  /** Opens the units of work (a change and its audit entry or event commit together). */
  db: Db;
  repo: GatewayAccountRepo;
  passwords: PasswordHasher;
  limits: AbuseLimits;
  jwt: Jwt;
  redis: Redis;
  keys: RedisKeys;
  /** Has the worker drain the party's reservation log into Postgres, and waits for it (settlement's port). */
  drainParty: (partyId: string) => Promise<void>;
  /** Active gateway keys a user may hold. */
  maxActiveKeys: number;
}

/** The lookups and the cache invalidation every use case shares. */
export function accountContext(deps: GatewayAccountDeps) {
  const { repo, redis, keys } = deps;
  return {
    /** Gateway processes drop the user's cached keys and party on this message (within a second). */
    invalidate: (userId: string) => redis.publish(keys.gateway.invalidations, invalidation.user(userId)),

    async partyOf(userId: string) {
      const party = await repo.findPartyOfUser(userId);
      if (!party) throw new AppError("PARTY_REQUIRED", "User does not have a party");
      return party;
    },

    /**
     * A valid token may name a user that no longer exists (deleted; or a `sub` forged with a leaked secret):
     * what writes rows for the user answers 401 then, not the foreign key's 500.
     */
    async existingUser(userId: string) {
      if (!(await repo.userExists(userId))) throw new AppError("INVALID_TOKEN", "Invalid token");
    },
  };
}

export type AccountContext = ReturnType<typeof accountContext>;
