import type { Db } from "@stake/db/client";
import type { BackgroundJob } from "../../background-job.ts";
import type { Logger } from "../../log.ts";
import { createAddressPolicy } from "./address-policy.ts";
import { createWebhookSender } from "./client.ts";
import type { WebhooksConfig } from "./config.ts";
import { startDeliveryLoop } from "./delivery.ts";
import { createDeliveryRepo, type DeliveryRepo } from "./delivery-repo.ts";
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
    webhookRetentionJob({ repo: createDeliveryRepo(deps.db), config: deps.config, logger: deps.logger }),
  ];
}

/** How often the retention job prunes, and how many rows one statement deletes at most. */
const PRUNE_EVERY_MS = 3_600_000;
const PRUNE_BATCH = 5_000;

/**
 * Retention (docs/operations.md, "Webhooks"): delivered and failed deliveries older than
 * WEBHOOK_RETENTION_DAYS are deleted, and the events no delivery refers to any more, at start and every
 * hour, in batches so no statement holds many locks. Idempotent, so several workers may run it.
 */
export function webhookRetentionJob(deps: {
  repo: DeliveryRepo;
  config: Pick<WebhooksConfig, "retentionMs">;
  logger: Logger;
}): BackgroundJob {
  const logger = deps.logger.child({ component: "webhook-retention" });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  async function prune() {
    const before = new Date(Date.now() - deps.config.retentionMs);
    let total = { deliveries: 0, events: 0 };
    for (;;) {
      const gone = await deps.repo.prune(before, PRUNE_BATCH);
      total = { deliveries: total.deliveries + gone.deliveries, events: total.events + gone.events };
      if (gone.deliveries < PRUNE_BATCH && gone.events < PRUNE_BATCH) break;
    }
    if (total.deliveries || total.events) logger.info(total, "old webhook deliveries and events deleted");
  }
  const tick = () => {
    running ??= prune()
      .catch((err: unknown) => logger.warn({ err }, "webhook retention failed; retried at the next tick"))
      .finally(() => {
        running = undefined;
      });
  };
  return {
    name: "webhook-retention",
    async start() {
      tick();
      timer = setInterval(tick, PRUNE_EVERY_MS).unref();
    },
    isRunning: () => timer !== undefined,
    async close() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
