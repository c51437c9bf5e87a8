import type { Db, DbOrTx } from "@stake/db/client";
import { sql } from "drizzle-orm";

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  attempts: number;
  createdAt: Date;
  eventId: string;
  type: string;
  data: unknown;
  eventCreatedAt: Date;
  endpointId: string;
  url: string;
  secretEncrypted: string;
  previousSecretEncrypted: string | null;
  previousSecretExpiresAt: Date | null;
}

export interface AttemptOutcome {
  id: string;
  endpointId: string;
  /** delivered, pending (retry at `nextAttemptAt`) or failed (given up). */
  status: "delivered" | "pending" | "failed";
  nextAttemptAt: Date;
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
}

const ts = (d: Date | string | null) => (d === null ? null : new Date(d));

/** A Postgres array literal of one bound parameter (drizzle would spread a JS array into a list). */
const arr = (xs: readonly (string | number | null)[]) =>
  `{${xs.map((x) => (x === null ? "NULL" : `"${String(x).replace(/["\\]/g, "\\$&")}"`)).join(",")}}`;

/** The delivery worker's reads and writes (it opens the transactions). */
export function createDeliveryRepo(db: Db) {
  return {
    /**
     * Claims up to `limit` due deliveries of enabled endpoints. Rows are locked with SKIP LOCKED, so
     * workers side by side never claim the same one, and the claim itself is a lease: `next_attempt_at`
     * moves `leaseMs` ahead and the attempt is counted, so a worker killed mid-delivery leaves rows that
     * come due again once the lease is over (at least once; the receiver dedups on `webhook-id`).
     *
     * Fair per owner (docs/operations.md, "Webhooks"): an owner has at most `perOwner` attempts in flight
     * across all workers (those leased and not yet recorded), and a batch takes the owners' due rows in
     * turns, each owner's oldest first: one owner's backlog or silent receiver cannot hold the slots every
     * other owner's deliveries wait for. The due and in-flight conditions are repeated where the rows are
     * locked, so a row another worker claimed meanwhile is re-checked there, not claimed twice.
     */
    async claim(limit: number, leaseMs: number, perOwner: number): Promise<ClaimedDelivery[]> {
      const rows = await db.execute<Record<string, unknown>>(sql`
        with busy as (
          select e.owner_kind, e.owner_id, count(*)::int as n from webhook_deliveries d
          join webhook_endpoints e on e.id = d.endpoint_id
          where d.leased_until > now() and d.status = 'pending'
          group by e.owner_kind, e.owner_id
        ), ranked as (
          select d.id, d.next_attempt_at, coalesce(b.n, 0) + row_number() over (
            partition by e.owner_kind, e.owner_id order by d.next_attempt_at, d.id) as turn
          from webhook_deliveries d
          join webhook_endpoints e on e.id = d.endpoint_id and e.enabled
          left join busy b on b.owner_kind = e.owner_kind and b.owner_id = e.owner_id
          where d.status = 'pending' and d.next_attempt_at <= now()
        ), due as (
          select d.id from webhook_deliveries d join ranked r on r.id = d.id
          where r.turn <= ${perOwner} and d.status = 'pending' and d.next_attempt_at <= now()
          order by r.turn, r.next_attempt_at
          limit ${limit}
          for update of d skip locked
        )
        update webhook_deliveries d
        set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond', attempts = d.attempts + 1,
            last_attempt_at = now(), leased_until = now() + ${leaseMs} * interval '1 millisecond'
        from due, webhook_events ev, webhook_endpoints e
        where d.id = due.id and ev.id = d.event_id and e.id = d.endpoint_id
        returning d.id, d.attempts, d.created_at, ev.id as event_id, ev.type, ev.data,
          ev.created_at as event_created_at, e.id as endpoint_id, e.url, e.secret_encrypted,
          e.previous_secret_encrypted, e.previous_secret_expires_at`);
      return rows.map((r) => ({
        id: r.id as string,
        attempts: r.attempts as number,
        createdAt: new Date(r.created_at as string),
        eventId: r.event_id as string,
        type: r.type as string,
        data: r.data,
        eventCreatedAt: new Date(r.event_created_at as string),
        endpointId: r.endpoint_id as string,
        url: r.url as string,
        secretEncrypted: r.secret_encrypted as string,
        previousSecretEncrypted: (r.previous_secret_encrypted as string | null) ?? null,
        previousSecretExpiresAt: ts(r.previous_secret_expires_at as string | null),
      }));
    },

    /** Records a batch of attempts in one statement. */
    async record(tx: DbOrTx, outcomes: readonly AttemptOutcome[]) {
      if (!outcomes.length) return;
      const col = (f: (o: AttemptOutcome) => string | number | null) => arr(outcomes.map(f));
      await tx.execute(sql`
        update webhook_deliveries d set
          status = o.status::webhook_delivery_status, next_attempt_at = o.next_attempt_at,
          response_status = o.response_status, latency_ms = o.latency_ms, last_error = o.error,
          delivered_at = case when o.status = 'delivered' then now() else d.delivered_at end,
          leased_until = null
        from unnest(${col((o) => o.id)}::text[], ${col((o) => o.status)}::text[],
                    ${col((o) => o.nextAttemptAt.toISOString())}::timestamptz[],
                    ${col((o) => o.responseStatus)}::int[], ${col((o) => o.latencyMs)}::int[],
                    ${col((o) => o.error)}::text[])
          as o(id, status, next_attempt_at, response_status, latency_ms, error)
        where d.id = o.id`);
    },

    /**
     * Endpoint health after a batch: a success ends a run of failures; failures extend it. Returns the
     * endpoints that now pass the disable rule, locked (FOR UPDATE) until the caller's transaction ends.
     */
    async accountFailures(
      tx: DbOrTx,
      results: { succeeded: string[]; failed: Map<string, number> },
      rule: { failures: number; afterMs: number },
    ) {
      if (results.succeeded.length)
        await tx.execute(sql`
          update webhook_endpoints set consecutive_failures = 0, failing_since = null
          where id = any(${arr(results.succeeded)}::text[]) and consecutive_failures > 0`);
      const failed = [...results.failed].filter(([id]) => !results.succeeded.includes(id));
      if (!failed.length) return [];
      return tx
        .execute<{
          id: string;
          owner_kind: "organisation" | "gateway_user";
          owner_id: string;
          url: string;
          consecutive_failures: number;
          failing_since: string;
        }>(sql`
        update webhook_endpoints e set consecutive_failures = e.consecutive_failures + f.n,
          failing_since = coalesce(e.failing_since, now())
        from unnest(${arr(failed.map(([id]) => id))}::text[], ${arr(failed.map(([, n]) => n))}::int[]) as f(id, n)
        where e.id = f.id and e.enabled
        returning e.id, e.owner_kind, e.owner_id, e.url, e.consecutive_failures, e.failing_since`)
        .then((rows) =>
          rows.filter(
            (r) =>
              r.consecutive_failures >= rule.failures &&
              Date.now() - new Date(r.failing_since).getTime() >= rule.afterMs,
          ),
        );
    },

    /**
     * Retention: deletes up to `limit` delivered or failed deliveries created before `before`, then up to
     * `limit` events of that age no delivery refers to any more (a pending delivery keeps its event).
     * SKIP LOCKED, so workers pruning side by side split the work. The rows deleted of each.
     */
    async prune(before: Date, limit: number) {
      const [deliveries] = await db.execute<{ n: number }>(sql`
        with gone as (
          delete from webhook_deliveries where id in (
            select id from webhook_deliveries
            where status <> 'pending' and created_at < ${before.toISOString()}::timestamptz
            limit ${limit} for update skip locked)
          returning 1)
        select count(*)::int as n from gone`);
      const [events] = await db.execute<{ n: number }>(sql`
        with gone as (
          delete from webhook_events where id in (
            select ev.id from webhook_events ev
            where ev.created_at < ${before.toISOString()}::timestamptz
              and not exists (select 1 from webhook_deliveries d where d.event_id = ev.id)
            limit ${limit} for update skip locked)
          returning 1)
        select count(*)::int as n from gone`);
      return { deliveries: deliveries?.n ?? 0, events: events?.n ?? 0 };
    },

    async disable(tx: DbOrTx, endpointId: string, reason: string) {
      await tx.execute(sql`
        update webhook_endpoints set enabled = false, disabled_reason = ${reason}, updated_at = now()
        where id = ${endpointId}`);
    },
  };
}

export type DeliveryRepo = ReturnType<typeof createDeliveryRepo>;
