import { idPattern } from "@stake/db/ids";
import { z } from "zod";
import { EVENT_TYPES } from "../../platform/event-types.ts";

const Timestamp = z.iso.datetime();
const EventTypes = z
  .array(z.enum(EVENT_TYPES))
  .max(EVENT_TYPES.length)
  .refine((a) => new Set(a).size === a.length, "event types must not repeat")
  .describe("Event types to deliver; empty or absent: every type the owner can receive");
const Url = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .describe("Where events are POSTed; https unless the operator allows http");
const Description = z.string().trim().max(256);

export const CreateEndpointRequest = z.object({
  url: Url,
  description: Description.default(""),
  eventTypes: EventTypes.default([]),
  enabled: z.boolean().default(true),
});
export type CreateEndpointRequest = z.infer<typeof CreateEndpointRequest>;

export const UpdateEndpointRequest = z
  .object({ url: Url, description: Description, eventTypes: EventTypes, enabled: z.boolean() })
  .partial()
  .refine((o) => Object.keys(o).length > 0, "give at least one of url, description, eventTypes, enabled");
export type UpdateEndpointRequest = z.infer<typeof UpdateEndpointRequest>;

export const EndpointIdParams = z.object({
  id: z
    .string()
    .regex(idPattern("webhookEndpoint"), "Malformed endpoint id (expected whep_ followed by base58)"),
});
export const DeliveryIdParams = z.object({
  id: z
    .string()
    .regex(idPattern("webhookDelivery"), "Malformed delivery id (expected whdl_ followed by base58)"),
});
export const DeliveriesQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;

export const EndpointResponse = z.object({
  id: z.string(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.string()),
  enabled: z.boolean(),
  /** Set when the worker disabled it after a long run of failures; null otherwise. */
  disabledReason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const CreateEndpointResponse = EndpointResponse.extend({
  secret: z.string().describe("The whsec_ signing secret, shown once"),
});
export const EndpointListResponse = z.object({ endpoints: z.array(EndpointResponse) });
export const RotateSecretResponse = z.object({
  id: z.string(),
  secret: z.string().describe("The new whsec_ secret, shown once"),
  previousSecretExpiresAt: Timestamp.describe(
    "Until then deliveries carry a signature with the old secret too",
  ),
});
export const TestEventResponse = z.object({ eventId: z.string() });
export const DeliveriesResponse = z.object({
  deliveries: z.array(
    z.object({
      id: z.string(),
      /** The `webhook-id` header of every attempt. */
      eventId: z.string(),
      type: z.string(),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: z.number().int(),
      responseStatus: z.number().int().nullable(),
      latencyMs: z.number().int().nullable(),
      lastError: z.string().nullable(),
      nextAttemptAt: Timestamp.nullable(),
      lastAttemptAt: Timestamp.nullable(),
      deliveredAt: Timestamp.nullable(),
      createdAt: Timestamp,
    }),
  ),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
});
export const ReplayResponse = z.object({ deliveryId: z.string(), eventId: z.string() });
