import type { Core } from "../core.ts";
import { createRequestLimit } from "../features/gateway-account/limit.ts";
import { createAddressPolicy } from "../features/webhooks/address-policy.ts";
import { webhookJobs } from "../features/webhooks/jobs.ts";
import { createWebhooksRepo } from "../features/webhooks/repo.ts";
import { gatewayWebhooksArea, webhooksArea } from "../features/webhooks/routes.ts";
import { createSecretBox } from "../features/webhooks/secrets.ts";
import { createWebhooksService } from "../features/webhooks/service.ts";

/** The endpoints of both sides (organisations by API key, gateway users by JWT) and the delivery job. */
export function composeArea({ config, db, redis, keys, logger }: Core) {
  const box = createSecretBox(config.eth.keyEncryptionKey);
  const service = createWebhooksService({
    db,
    repo: createWebhooksRepo(db),
    box,
    policy: createAddressPolicy(config.webhooks.allowed),
    config: config.webhooks,
  });
  const gw = config.gatewayAccount;
  return {
    routes: [
      webhooksArea({ service }),
      // The gateway account API's per-client budget (the same Redis counter as gateway-account's routes).
      gatewayWebhooksArea({
        service,
        limit: createRequestLimit({ redis, keys, points: gw.rateLimit, windowSeconds: gw.rateWindowSeconds }),
      }),
    ],
    jobs: () => webhookJobs({ db, box, config: config.webhooks, logger }),
  };
}
