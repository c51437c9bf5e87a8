import type { DbOrTx } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@stake/db/schema/webhooks";
import { and, eq, or } from "drizzle-orm";
import type { EventData, EventType, Owner } from "./event-types.ts";

export type { EventType, Owner } from "./event-types.ts";

export interface OutboxEvent<T extends EventType = EventType> {
  owner: Owner;
  type: T;
  data: EventData<T>;
  /** Deliver to this endpoint only (a test event), not to every subscribed one. */
  endpointId?: string;
}

/**
 * The outbox writer, the port other areas emit events through (docs/architecture.md §12). It runs in the
 * caller's transaction (`tx`): the event and its deliveries commit or roll back with the change that
 * caused them, so no event is told of a change that did not happen, and none is lost for one that did.
 * One row per event and one delivery per subscribed, enabled endpoint of its owner; an event nobody
 * subscribed to is not stored. Returns the ids of the events stored.
 */
export async function emitEvents(tx: DbOrTx, events: readonly OutboxEvent[]): Promise<string[]> {
  if (!events.length) return [];
  const owners = [...new Set(events.map((e) => `${e.owner.kind}:${e.owner.id}`))].map((k) => {
    const i = k.indexOf(":");
    return { kind: k.slice(0, i) as Owner["kind"], id: k.slice(i + 1) };
  });
  const endpoints = await tx
    .select({
      id: webhookEndpoints.id,
      ownerKind: webhookEndpoints.ownerKind,
      ownerId: webhookEndpoints.ownerId,
      eventTypes: webhookEndpoints.eventTypes,
    })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.enabled, true),
        or(
          ...owners.map((o) =>
            and(eq(webhookEndpoints.ownerKind, o.kind), eq(webhookEndpoints.ownerId, o.id)),
          ),
        ),
      ),
    );
  if (!endpoints.length) return [];
  const eventRows: (typeof webhookEvents.$inferInsert)[] = [];
  const deliveryRows: (typeof webhookDeliveries.$inferInsert)[] = [];
  for (const e of events) {
    const targets = endpoints.filter(
      (p) =>
        p.ownerKind === e.owner.kind &&
        p.ownerId === e.owner.id &&
        (e.endpointId === undefined
          ? p.eventTypes.length === 0 || p.eventTypes.includes(e.type)
          : p.id === e.endpointId),
    );
    if (!targets.length) continue;
    const id = newId("webhookEvent");
    eventRows.push({ id, ownerKind: e.owner.kind, ownerId: e.owner.id, type: e.type, data: e.data });
    for (const t of targets)
      deliveryRows.push({ id: newId("webhookDelivery"), eventId: id, endpointId: t.id });
  }
  // Chunks keep each statement under Postgres' 65,535 bind parameters.
  for (let i = 0; i < eventRows.length; i += 5_000)
    await tx.insert(webhookEvents).values(eventRows.slice(i, i + 5_000));
  for (let i = 0; i < deliveryRows.length; i += 10_000)
    await tx.insert(webhookDeliveries).values(deliveryRows.slice(i, i + 10_000));
  return eventRows.map((r) => r.id as string);
}

/** One event (see `emitEvents`). */
export async function emitEvent<T extends EventType>(
  tx: DbOrTx,
  event: OutboxEvent<T>,
): Promise<string | null> {
  return (await emitEvents(tx, [event as OutboxEvent]))[0] ?? null;
}
