import { validatorStatus } from "@stake/db/schema/beacon-data";
import { z } from "zod";

/**
 * Every webhook event type and the `data` of its payload (docs/spec.md "Webhooks", the OpenAPI `webhooks`
 * section). The body of a delivery is `{type, timestamp, data}` as the Standard Webhooks spec recommends;
 * amounts are decimal strings (wei/gwei/base units as named), never JSON numbers.
 */
const Pubkey = z.string().regex(/^0x[0-9a-f]{96}$/);
/** The spec's validator lifecycle statuses (docs/spec.md "Validator lifecycle status"), the one enum. */
const Status = z.enum(validatorStatus.enumValues).describe("Validator lifecycle status");
const Gwei = z.string().regex(/^-?\d+$/);

export const EVENT_DATA = {
  "provision.completed": z.object({
    provisionId: z.string(),
    validatorsCount: z.number().int(),
    pubkeys: z.array(Pubkey),
  }),
  "provision.failed": z.object({ provisionId: z.string(), reason: z.string() }),
  "validator.status_changed": z.object({
    pubkey: Pubkey,
    validatorIndex: z.number().int().nullable(),
    previousStatus: Status.nullable(),
    status: Status,
    epoch: z.number().int().nullable(),
  }),
  "validator.slashed": z.object({
    pubkey: Pubkey,
    validatorIndex: z.number().int(),
    epoch: z.number().int(),
  }),
  "validator.offline": z.object({
    pubkey: Pubkey,
    validatorIndex: z.number().int(),
    epoch: z.number().int(),
    fallingEpochs: z.number().int().describe("Epochs in a row the balance fell"),
    balanceGwei: Gwei,
  }),
  "rewards.daily_closed": z.object({
    chain: z.literal("ethereum"),
    date: z.iso.date().describe("The UTC day, final: every epoch starting that day is finalized"),
    validatorEpochs: z.number().int().describe("Validator-epochs summed (validators × epochs of the day)"),
    clRewardsGwei: Gwei,
    elRewardsGwei: Gwei,
  }),
  "statement.ready": z.object({
    chain: z.string(),
    month: z.string().describe("YYYY-MM; closed: no row of it can change any more"),
    rows: z.number().int().describe("Rows of the statement (validators or stake accounts × days)"),
    baseUnit: z.string().describe("The unit of earned and withdrawn (gwei, wei)"),
    earned: z.string().describe("The month's earnings, base units, exact"),
    withdrawn: z.string().describe("The month's withdrawals, base units, exact"),
  }),
  "gateway.balance_low": z.object({
    partyId: z.string(),
    balance: z.string().describe("Ledger coins, exact decimal string"),
    threshold: z.string().describe("Ledger coins, exact decimal string"),
  }),
  "gateway.key_deactivated": z.object({
    keyId: z.string(),
    start: z.string(),
    deactivatedAt: z.iso.datetime(),
  }),
  "webhook.endpoint_disabled": z.object({
    endpointId: z.string(),
    url: z.string(),
    consecutiveFailures: z.number().int(),
    failingSince: z.iso.datetime(),
  }),
  "webhook.test": z.object({ endpointId: z.string(), message: z.string() }),
} as const;

export type EventType = keyof typeof EVENT_DATA;
export type EventData<T extends EventType> = z.input<(typeof EVENT_DATA)[T]>;
export const EVENT_TYPES = Object.keys(EVENT_DATA) as EventType[];

/** Who an event concerns: its endpoints are the ones this owner registered. */
export type Owner = { kind: "organisation"; id: string } | { kind: "gateway_user"; id: string };

/** Which types each kind of owner can receive (an endpoint subscribes to a subset). */
export const OWNER_EVENT_TYPES: Record<Owner["kind"], EventType[]> = {
  organisation: [
    "provision.completed",
    "provision.failed",
    "validator.status_changed",
    "validator.slashed",
    "validator.offline",
    "rewards.daily_closed",
    "statement.ready",
    "webhook.endpoint_disabled",
    "webhook.test",
  ],
  gateway_user: [
    "gateway.balance_low",
    "gateway.key_deactivated",
    "webhook.endpoint_disabled",
    "webhook.test",
  ],
};

/** The delivered body of one event (Standard Webhooks' recommended envelope). */
export function eventPayload(type: string, data: unknown, createdAt: Date) {
  return { type, timestamp: createdAt.toISOString(), data };
}

/** The OpenAPI 3.1 `webhooks` section: one entry per event type, its body and the signing headers. */
export function openApiWebhooks(): Record<string, unknown> {
  const header = (description: string) => ({ required: true, schema: { type: "string" }, description });
  return Object.fromEntries(
    EVENT_TYPES.map((type) => {
      const { $schema: _, ...data } = z.toJSONSchema(EVENT_DATA[type], { io: "output" }) as Record<
        string,
        unknown
      >;
      return [
        type,
        {
          post: {
            summary: `${type} (Standard Webhooks: verify webhook-signature before trusting the body)`,
            parameters: [
              { name: "webhook-id", in: "header", ...header("The event's id; the same on every retry") },
              { name: "webhook-timestamp", in: "header", ...header("Unix seconds of this attempt") },
              {
                name: "webhook-signature",
                in: "header",
                ...header(
                  '"v1,<base64 HMAC-SHA256 of id.timestamp.body>", several space-separated during rotation',
                ),
              },
            ],
            requestBody: {
              required: true,
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    required: ["type", "timestamp", "data"],
                    properties: {
                      type: { const: type },
                      timestamp: { type: "string", format: "date-time" },
                      data,
                    },
                  },
                },
              },
            },
            responses: { "2XX": { description: "received; anything else (or no answer) is retried" } },
          },
        },
      ];
    }),
  );
}
