import type { Db } from "@stake/db/client";
import type { BackgroundJob } from "../../background-job.ts";
import type { Logger } from "../../log.ts";
import { createAddressPolicy } from "./address-policy.ts";
import { createWebhookSender } from "./client.ts";
import type { WebhooksConfig } from "./config.ts";
import { startDeliveryLoop } from "./delivery.ts";
import { createDeliveryRepo } from "./delivery-repo.ts";
import type { SecretBox } from "./secrets.ts";

/**
 * Webhook delivery as a worker job (docs/architecture.md §12): a timer loop rather than a BullMQ queue,
 * because the queue is the outbox itself (Postgres rows claimed with SKIP LOCKED), written in the
 * transaction of each event's cause; several workers share it without a scheduler.
 */
export function webhookJobs(deps: {
  db: Db;
  box: SecretBox;
  config: WebhooksConfig;
  logger: Logger;
}): BackgroundJob[] {
  let loop: ReturnType<typeof startDeliveryLoop> | undefined;
  let sender: ReturnType<typeof createWebhookSender> | undefined;
  return [
    {
      name: "webhook-delivery",
      async start() {
        sender = createWebhookSender({ policy: createAddressPolicy(deps.config.allowed), ...deps.config });
        loop = startDeliveryLoop({
          db: deps.db,
          repo: createDeliveryRepo(deps.db),
          sender,
          box: deps.box,
          config: deps.config,
          logger: deps.logger.child({ component: "webhook-delivery" }),
        });
      },
      isRunning: () => loop?.isRunning() ?? false,
      async close() {
        await loop?.close();
        await sender?.close();
      },
    },
  ];
}
