import { lookup } from "node:dns/promises";
import type { Db } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { AppError } from "../../errors.ts";
import { OWNER_EVENT_TYPES, type Owner } from "../../platform/event-types.ts";
import { emitEvent } from "../../platform/outbox.ts";
import { lockOwnerCap } from "../../platform/owner-cap.ts";
import type { AddressPolicy } from "./address-policy.ts";
import type { WebhooksConfig } from "./config.ts";
import type { EndpointRow, WebhooksRepo } from "./repo.ts";
import type { CreateEndpointRequest, DeliveriesQuery, UpdateEndpointRequest } from "./schemas.ts";
import type { SecretBox } from "./secrets.ts";
import { newSecret } from "./signing.ts";

const iso = (d: Date | null) => d?.toISOString() ?? null;

function present(e: EndpointRow) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

/** Webhook endpoints of one owner (an organisation or a gateway user); both route groups call this. */
export function createWebhooksService(deps: {
  /** Opens the unit of work (the repository takes its `tx`). */
  db: Db;
  repo: WebhooksRepo;
  box: SecretBox;
  policy: AddressPolicy;
  config: Pick<WebhooksConfig, "allowHttp" | "endpointsPerOwner" | "secretOverlapMs" | "allowedCidrs">;
  /** Name resolution (tests may pass their own); the delivery connection resolves again and pins. */
  resolve?: (host: string) => Promise<string[]>;
}) {
  const { repo, box, policy, config } = deps;
  const resolve =
    deps.resolve ?? (async (host: string) => (await lookup(host, { all: true })).map((a) => a.address));
  const refused = (message: string) => new AppError("WEBHOOK_URL_REFUSED", message);

  /**
   * Refused at once when it can be told now (scheme, credentials, every address refused), so the tenant
   * learns it from the API rather than from failed deliveries; the delivery checks again on every connect.
   */
  async function checkUrl(raw: string) {
    const url = new URL(raw);
    if (url.protocol !== "https:" && !(config.allowHttp && url.protocol === "http:"))
      throw refused("The endpoint URL must use https");
    if (url.username || url.password) throw refused("The endpoint URL must not carry credentials");
    const host = url.hostname.replace(/^\[|\]$/g, "");
    // One answer whatever the reason (no such name, or only internal addresses), so the refusals cannot
    // be used to learn which internal host names resolve.
    const unreachable = () =>
      refused("The endpoint host must resolve to a public address (not loopback, private or reserved)");
    const addresses = await resolve(host).catch(() => {
      throw unreachable();
    });
    if (!addresses.some((a) => policy.refusal(a) === null)) throw unreachable();
  }

  function checkTypes(owner: Owner, types: readonly string[]) {
    const allowed: readonly string[] = OWNER_EVENT_TYPES[owner.kind];
    const bad = types.filter((t) => !allowed.includes(t));
    if (bad.length)
      throw new AppError("VALIDATION_ERROR", `Invalid eventTypes: ${bad.join(", ")} not for this account`, {
        details: [
          { field: "eventTypes", message: `Not delivered to this kind of account: ${bad.join(", ")}` },
        ],
      });
  }

  async function endpointOf(owner: Owner, id: string) {
    const e = await repo.findEndpoint(owner, id);
    if (!e) throw new AppError("WEBHOOK_ENDPOINT_NOT_FOUND", "Webhook endpoint not found");
    return e;
  }

  return {
    async create(owner: Owner, input: CreateEndpointRequest) {
      checkTypes(owner, input.eventTypes);
      await checkUrl(input.url);
      const id = newId("webhookEndpoint");
      const secret = newSecret();
      const row = await deps.db.transaction(async (tx) => {
        await lockOwnerCap(tx, "webhook_endpoints", `${owner.kind}:${owner.id}`);
        if ((await repo.countEndpoints(owner, tx)) >= config.endpointsPerOwner)
          throw new AppError(
            "WEBHOOK_ENDPOINT_LIMIT_REACHED",
            `You already have ${config.endpointsPerOwner} webhook endpoints; delete one first`,
          );
        return repo.insertEndpoint(
          {
            id,
            ownerKind: owner.kind,
            ownerId: owner.id,
            url: input.url,
            description: input.description,
            eventTypes: input.eventTypes,
            enabled: input.enabled,
            secretEncrypted: box.seal(secret, id),
          },
          tx,
        );
      });
      return { ...present(row), secret };
    },

    async list(owner: Owner) {
      return { endpoints: (await repo.listEndpoints(owner)).map(present) };
    },

    async get(owner: Owner, id: string) {
      return present(await endpointOf(owner, id));
    },

    /** Enabling an endpoint (again) starts its failure count afresh. */
    async update(owner: Owner, id: string, input: UpdateEndpointRequest) {
      await endpointOf(owner, id);
      if (input.eventTypes) checkTypes(owner, input.eventTypes);
      if (input.url !== undefined) await checkUrl(input.url);
      const reenable =
        input.enabled === undefined
          ? {}
          : { disabledReason: null, consecutiveFailures: 0, failingSince: null, enabled: input.enabled };
      const patch = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      const row = await repo.updateEndpoint(owner, id, { ...patch, ...reenable });
      if (!row) throw new AppError("WEBHOOK_ENDPOINT_NOT_FOUND", "Webhook endpoint not found");
      return present(row);
    },

    async remove(owner: Owner, id: string) {
      if (!(await repo.deleteEndpoint(owner, id)))
        throw new AppError("WEBHOOK_ENDPOINT_NOT_FOUND", "Webhook endpoint not found");
    },

    /** A new secret, shown once; the current one keeps signing beside it for WEBHOOK_SECRET_OVERLAP_MS. */
    async rotateSecret(owner: Owner, id: string) {
      const e = await endpointOf(owner, id);
      const secret = newSecret();
      const expires = new Date(Date.now() + config.secretOverlapMs);
      await repo.updateEndpoint(owner, id, {
        secretEncrypted: box.seal(secret, id),
        previousSecretEncrypted: e.secretEncrypted,
        previousSecretExpiresAt: expires,
      });
      return { id, secret, previousSecretExpiresAt: expires.toISOString() };
    },

    /** A `webhook.test` event to this endpoint only, through the outbox like any other. */
    async sendTest(owner: Owner, id: string) {
      const e = await endpointOf(owner, id);
      const eventId = await deps.db.transaction((tx) =>
        emitEvent(tx, {
          owner,
          type: "webhook.test",
          data: { endpointId: e.id, message: "A test event sent from the API" },
          endpointId: e.id,
        }),
      );
      if (!eventId)
        throw new AppError("WEBHOOK_ENDPOINT_DISABLED", "The webhook endpoint is disabled; enable it first");
      return { eventId };
    },

    async deliveries(owner: Owner, id: string, q: DeliveriesQuery) {
      await endpointOf(owner, id);
      const { rows, total } = await repo.listDeliveries(id, q.page, q.pageSize);
      const deliveries = rows.map(({ delivery: d, type }) => ({
        id: d.id,
        eventId: d.eventId,
        type,
        status: d.status,
        attempts: d.attempts,
        responseStatus: d.responseStatus,
        latencyMs: d.latencyMs,
        lastError: d.lastError,
        nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
        lastAttemptAt: iso(d.lastAttemptAt),
        deliveredAt: iso(d.deliveredAt),
        createdAt: d.createdAt.toISOString(),
      }));
      return { deliveries, page: q.page, pageSize: q.pageSize, total };
    },

    async replay(owner: Owner, deliveryId: string) {
      const row = await repo.replayDelivery(owner, deliveryId, newId("webhookDelivery"));
      if (!row) throw new AppError("WEBHOOK_DELIVERY_NOT_FOUND", "Webhook delivery not found");
      return { deliveryId: row.id, eventId: row.event_id };
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
