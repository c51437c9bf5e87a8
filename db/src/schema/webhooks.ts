import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { timestamps } from "./_columns.ts";

/**
 * Webhooks (docs/spec.md "Webhooks"): endpoints tenants register, the outbox of events written in
 * the transaction of their cause, and one delivery row per event and endpoint that the worker works off.
 * An owner is an organisation (staking API) or a gateway user (gateway account API); the id's prefix says
 * which, the kind column makes it queryable without parsing.
 */
export const webhookOwnerKind = pgEnum("webhook_owner_kind", ["organisation", "gateway_user"]);

export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text().primaryKey(),
    ownerKind: webhookOwnerKind().notNull(),
    ownerId: text().notNull(),
    url: text().notNull(),
    description: text().notNull().default(""),
    /** Event types delivered; empty means every type. */
    eventTypes: text().array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean().notNull().default(true),
    /** Why the worker disabled it (a long run of failures); null when enabled or disabled by the owner. */
    disabledReason: text(),
    /** The `whsec_` secret, AES-256-GCM enveloped: it signs, so it cannot be hashed. */
    secretEncrypted: text().notNull(),
    /** The secret before the last rotation, still signing (a second signature) until it expires. */
    previousSecretEncrypted: text(),
    previousSecretExpiresAt: timestamp({ withTimezone: true, precision: 3 }),
    /** Failed attempts since the last success, and when the run started (auto-disable). */
    consecutiveFailures: integer().notNull().default(0),
    failingSince: timestamp({ withTimezone: true, precision: 3 }),
    ...timestamps(),
  },
  (t) => [index("webhook_endpoints_owner").on(t.ownerKind, t.ownerId)],
);

/** The outbox: one row per event, inserted in the transaction of the change that caused it. */
export const webhookEvents = pgTable(
  "webhook_events",
  {
    /** The `webhook-id` header: stable across attempts and replays. */
    id: text().primaryKey(),
    ownerKind: webhookOwnerKind().notNull(),
    ownerId: text().notNull(),
    type: text().notNull(),
    data: jsonb().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("webhook_events_owner").on(t.ownerKind, t.ownerId, t.createdAt)],
);

export const webhookDeliveryStatus = pgEnum("webhook_delivery_status", ["pending", "delivered", "failed"]);

/** One event to one endpoint: its attempts, outcome and when the worker tries it next. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text().primaryKey(),
    eventId: text()
      .notNull()
      .references(() => webhookEvents.id, { onDelete: "cascade" }),
    endpointId: text()
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    status: webhookDeliveryStatus().notNull().default("pending"),
    attempts: integer().notNull().default(0),
    /** Due time while pending; a claim pushes it out by the lease, so a killed worker's claim comes due again. */
    nextAttemptAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastAttemptAt: timestamp({ withTimezone: true, precision: 3 }),
    /**
     * Set by a claim to the end of its lease, cleared when the attempt is recorded: while it is ahead the
     * attempt is in flight, and the claim counts an owner's attempts in flight against its share.
     */
    leasedUntil: timestamp({ withTimezone: true, precision: 3 }),
    responseStatus: integer(),
    latencyMs: integer(),
    /** What went wrong on the last attempt (transport error, refused address); never the response body. */
    lastError: text(),
    deliveredAt: timestamp({ withTimezone: true, precision: 3 }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // The worker's claim: only pending rows, by due time.
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    index("webhook_deliveries_endpoint").on(t.endpointId, t.createdAt),
    // Attempts in flight, counted per owner by every claim.
    index("webhook_deliveries_leased").on(t.leasedUntil).where(sql`${t.leasedUntil} is not null`),
    // Retention: finished rows by age.
    index("webhook_deliveries_finished").on(t.createdAt).where(sql`${t.status} <> 'pending'`),
  ],
);
