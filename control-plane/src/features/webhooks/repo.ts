import type { Db, DbOrTx } from "@stake/db/client";
import { webhookDeliveries, webhookEndpoints, webhookEvents } from "@stake/db/schema/webhooks";
import { and, count, desc, eq, sql } from "drizzle-orm";
import type { Owner } from "../../platform/event-types.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

const ownedBy = (owner: Owner) =>
  and(eq(webhookEndpoints.ownerKind, owner.kind), eq(webhookEndpoints.ownerId, owner.id));

/** What the API reads and writes: endpoints, their deliveries, a replay. */
export function createWebhooksRepo(db: Db) {
  return {
    async countEndpoints(owner: Owner, tx: DbOrTx = db) {
      const [row] = await tx.select({ n: count() }).from(webhookEndpoints).where(ownedBy(owner));
      return row?.n ?? 0;
    },
    async insertEndpoint(row: typeof webhookEndpoints.$inferInsert, tx: DbOrTx = db) {
      const [inserted] = await tx.insert(webhookEndpoints).values(row).returning();
      return inserted as EndpointRow;
    },
    async listEndpoints(owner: Owner) {
      return db
        .select()
        .from(webhookEndpoints)
        .where(ownedBy(owner))
        .orderBy(desc(webhookEndpoints.createdAt));
    },
    async findEndpoint(owner: Owner, id: string, tx: DbOrTx = db) {
      const [row] = await tx
        .select()
        .from(webhookEndpoints)
        .where(and(ownedBy(owner), eq(webhookEndpoints.id, id)));
      return row ?? null;
    },
    async updateEndpoint(owner: Owner, id: string, patch: Partial<typeof webhookEndpoints.$inferInsert>) {
      const [row] = await db
        .update(webhookEndpoints)
        .set(patch)
        .where(and(ownedBy(owner), eq(webhookEndpoints.id, id)))
        .returning();
      return row ?? null;
    },
    async deleteEndpoint(owner: Owner, id: string) {
      const rows = await db
        .delete(webhookEndpoints)
        .where(and(ownedBy(owner), eq(webhookEndpoints.id, id)))
        .returning({ id: webhookEndpoints.id });
      return rows.length > 0;
    },
    /** One page of an endpoint's deliveries, newest first, with their event's type. */
    async listDeliveries(endpointId: string, page: number, pageSize: number) {
      const where = eq(webhookDeliveries.endpointId, endpointId);
      const [rows, [total]] = await Promise.all([
        db
          .select({ delivery: webhookDeliveries, type: webhookEvents.type })
          .from(webhookDeliveries)
          .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
          .where(where)
          .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
          .limit(pageSize)
          .offset((page - 1) * pageSize),
        db.select({ n: count() }).from(webhookDeliveries).where(where),
      ]);
      return { rows, total: total?.n ?? 0 };
    },
    /**
     * A replay is a new delivery of the same event to the same endpoint, due now: the same `webhook-id`
     * (the event's id), a fresh retry window, and the first delivery's record left as it was.
     */
    async replayDelivery(owner: Owner, id: string, newDeliveryId: string) {
      const rows = await db.execute<{ id: string; event_id: string }>(sql`
        insert into webhook_deliveries (id, event_id, endpoint_id)
        select ${newDeliveryId}, d.event_id, d.endpoint_id
        from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
        where d.id = ${id} and e.owner_kind = ${owner.kind} and e.owner_id = ${owner.id}
        returning id, event_id`);
      return rows[0] ?? null;
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
