import { createAccountOperatorService, createGatewayOperatorService } from "@stake/control-plane/operator";
import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { loadOperatorConfig, type OperatorContext } from "../../scripts/operator/context.ts";

/**
 * An operator CLI context on a test's own database and Redis prefix, its configuration parsed from `env`
 * as `npm run operator` would parse the process environment.
 */
export function operatorContext(
  deps: { db: Db; redis: Redis; keys: RedisKeys },
  env: Record<string, string> = {},
): OperatorContext {
  return {
    ...deps,
    accounts: createAccountOperatorService(deps),
    gateway: createGatewayOperatorService(deps),
    config: loadOperatorConfig(env),
    json: true,
  };
}
