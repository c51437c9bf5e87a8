import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { createJwt } from "./auth/jwt.ts";
import { createPasswordHasher } from "./auth/password.ts";
import type { Config } from "./config.ts";
import { createAccountService } from "./features/account-v2/service.ts";
import { createConsoleSessions } from "./features/console/sessions.ts";
import { createAbuseLimits } from "./http/abuse-limits.ts";
import type { Logger } from "./log.ts";
import { createAccountsRepo } from "./platform/accounts-repo.ts";

/**
 * What the composition root (compose.ts) builds first and hands every area's `composeArea` (areas/): apart
 * from compose.ts, so an area depends on what it is given and never on the root that loads it.
 */
export interface RootDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** Reads of the data endpoints (a read replica, `createReadDb`); the primary `db` when not given. */
  reads?: Db;
  /** The process's Redis connection (in the worker: settlement's, which fails a pass rather than waiting). */
  redis: Redis;
}

/** What every area shares: the accounts (every staking area authenticates through them), hashing, limits. */
export function createCore(deps: RootDeps) {
  const { config, db, redis } = deps;
  const keys = createRedisKeys(config.redisPrefix);
  const passwords = createPasswordHasher(config.argon2);
  const limits = createAbuseLimits({ redis, keys, config });
  const accountsRepo = createAccountsRepo(db);
  const accounts = createAccountService({
    db,
    accounts: accountsRepo,
    passwords,
    limits,
    maxActiveKeys: config.apiKeysPerOrganisation,
  });
  return {
    ...deps,
    reads: deps.reads ?? db,
    keys,
    queuePrefix: keys.queuePrefix,
    passwords,
    limits,
    accountsRepo,
    accounts,
    // Every staking area accepts a console session as the organisation's credential (app.ts).
    consoleSessions: createConsoleSessions({
      redis,
      keys,
      authenticate: accounts.authenticate,
      findOrganisation: accountsRepo.findOrganisationById,
    }),
    jwt: createJwt({
      secret: config.gatewayAccount.jwtSecret,
      issuer: "stake-gateway-account",
      audience: "stake-gateway-account-api",
      ttlSeconds: config.gatewayAccount.jwtTtlSeconds,
    }),
  };
}

export type Core = ReturnType<typeof createCore>;
