import type { Core } from "../core.ts";
import { createGatewayKeyService } from "../features/gateway-account/keys-service.ts";
import { createRequestLimit } from "../features/gateway-account/limit.ts";
import { createGatewayAccountRepo } from "../features/gateway-account/repo.ts";
import { gatewayAccountArea } from "../features/gateway-account/routes.ts";
import { createGatewayAccountService } from "../features/gateway-account/service.ts";
import { createDrainQueue, createDrainRequest } from "../features/gateway-settlement/jobs.ts";

export function composeArea({ config, db, redis, keys, passwords, limits, jwt, queuePrefix }: Core) {
  const gw = config.gatewayAccount;
  const repo = createGatewayAccountRepo(db);
  const accounts = createGatewayAccountService({
    db,
    repo,
    passwords,
    limits,
    jwt,
    redis,
    keys,
    maxActiveKeys: gw.keysPerUser,
    drainParty: createDrainRequest({
      queue: createDrainQueue({ connection: redis, prefix: queuePrefix }),
      waitMs: 5_000,
    }),
  });
  return {
    routes: [
      gatewayAccountArea({
        accounts,
        keys: createGatewayKeyService({ db, repo, redis, keys }),
        limit: createRequestLimit({ redis, keys, points: gw.rateLimit, windowSeconds: gw.rateWindowSeconds }),
      }),
    ],
  };
}
