import type { Db } from "@stake/db/client";
import type { Logger } from "../../log.ts";
import { eventPayload } from "../../platform/event-types.ts";
import { emitEvent } from "../../platform/outbox.ts";
import type { createWebhookSender } from "./client.ts";
import type { WebhooksConfig } from "./config.ts";
import type { AttemptOutcome, ClaimedDelivery, DeliveryRepo } from "./delivery-repo.ts";
import type { SecretBox } from "./secrets.ts";
import { signedHeaders } from "./signing.ts";

/**
 * Delay before attempt `attempts + 1`: exponential from `baseMs`, capped at `maxMs`, with "equal jitter"
 * (half fixed, half random) so the retries of many deliveries failed at once spread out instead of
 * arriving together, while each still waits at least half its step.
 */
export function retryDelayMs(
  attempts: number,
  opts: { baseMs: number; maxMs: number },
  random = Math.random,
) {
  const step = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(30, Math.max(0, attempts - 1)));
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * The delivery loop of the worker process (a timer loop like settlement's, docs/architecture.md §12):
 * claims due deliveries in batches (delivery-repo.ts: SKIP LOCKED plus a lease), sends each signed, and
 * records each batch's outcomes with the endpoints' failure runs in one transaction; an endpoint past the
 * disable rule is disabled there, and its owner told (`webhook.endpoint_disabled`) in the same
 * transaction. Every state is in Postgres: a killed worker's claims come due after their lease, and a
 * Postgres outage only pauses the loop.
 */
export function startDeliveryLoop(deps: {
  /** Opens the unit of work (the repository takes its `tx`). */
  db: Db;
  repo: DeliveryRepo;
  sender: ReturnType<typeof createWebhookSender>;
  box: SecretBox;
  config: WebhooksConfig;
  logger: Logger;
}) {
  const { repo, config, logger } = deps;
  const leaseMs = config.timeoutMs + 5_000;
  const batchMax = Math.max(1, Math.ceil(config.concurrency / 2));
  let stopped = false;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });

  async function attempt(d: ClaimedDelivery, secrets: Map<string, string[]>): Promise<AttemptOutcome> {
    const now = Date.now();
    const base = { id: d.id, endpointId: d.endpointId };
    if (now - d.createdAt.getTime() > config.maxAgeMs)
      return {
        ...base,
        status: "failed",
        nextAttemptAt: new Date(now),
        responseStatus: null,
        latencyMs: 0,
        error: "expired",
      };
    let keys = secrets.get(d.endpointId);
    if (!keys) {
      keys = [deps.box.open(d.secretEncrypted, d.endpointId)];
      if (d.previousSecretEncrypted && d.previousSecretExpiresAt && d.previousSecretExpiresAt.getTime() > now)
        keys.push(deps.box.open(d.previousSecretEncrypted, d.endpointId));
      secrets.set(d.endpointId, keys);
    }
    const body = JSON.stringify(eventPayload(d.type, d.data, d.eventCreatedAt));
    const sent = await deps.sender.send(
      d.url,
      signedHeaders(keys, d.eventId, Math.floor(now / 1000), body),
      body,
    );
    const outcome = { ...base, responseStatus: sent.status, latencyMs: sent.latencyMs, error: sent.error };
    if (sent.error === null) return { ...outcome, status: "delivered", nextAttemptAt: new Date() };
    const next =
      Date.now() + retryDelayMs(d.attempts, { baseMs: config.retryBaseMs, maxMs: config.retryMaxMs });
    const givenUp = next - d.createdAt.getTime() > config.maxAgeMs;
    return { ...outcome, status: givenUp ? "failed" : "pending", nextAttemptAt: new Date(next) };
  }

  async function deliver(batch: ClaimedDelivery[]) {
    const secrets = new Map<string, string[]>();
    const outcomes = await Promise.all(batch.map((d) => attempt(d, secrets)));
    const succeeded = [...new Set(outcomes.filter((o) => o.status === "delivered").map((o) => o.endpointId))];
    const failed = new Map<string, number>();
    for (const o of outcomes)
      if (o.status !== "delivered" && o.error !== "expired")
        failed.set(o.endpointId, (failed.get(o.endpointId) ?? 0) + 1);
    await deps.db.transaction(async (tx) => {
      await repo.record(tx, outcomes);
      const toDisable = await repo.accountFailures(
        tx,
        { succeeded, failed },
        {
          failures: config.disableAfterFailures,
          afterMs: config.disableAfterMs,
        },
      );
      for (const e of toDisable) {
        await repo.disable(tx, e.id, `disabled after ${e.consecutive_failures} failed attempts in a row`);
        await emitEvent(tx, {
          owner: { kind: e.owner_kind, id: e.owner_id },
          type: "webhook.endpoint_disabled",
          data: {
            endpointId: e.id,
            url: e.url,
            consecutiveFailures: e.consecutive_failures,
            failingSince: new Date(e.failing_since).toISOString(),
          },
        });
        logger.warn({ endpointId: e.id, failures: e.consecutive_failures }, "webhook endpoint disabled");
      }
    });
  }

  async function loop() {
    while (!stopped) {
      const want = Math.min(batchMax, config.concurrency - inFlight);
      let full = false;
      if (want > 0) {
        try {
          const batch = await repo.claim(want, leaseMs, config.concurrencyPerOwner);
          full = batch.length === want;
          if (batch.length) {
            inFlight += batch.length;
            const run: Promise<void> = deliver(batch)
              .catch((err) => logger.error({ err, deliveries: batch.length }, "webhook batch not recorded"))
              .finally(() => {
                inFlight -= batch.length;
                running.delete(run);
                wake?.();
              });
            running.add(run);
          }
        } catch (err) {
          logger.warn({ err }, "webhook claim failed; retrying");
        }
      }
      if (!full && !stopped) await pause(config.pollIntervalMs);
    }
  }
  const looping = loop();

  return {
    isRunning: () => !stopped,
    /** Stops claiming and waits for the attempts in flight to be recorded. */
    async close() {
      stopped = true;
      wake?.();
      await looping;
      await Promise.allSettled([...running]);
    },
  };
}
