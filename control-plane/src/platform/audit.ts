import type { DbOrTx } from "@stake/db/client";
import { auditLog } from "@stake/db/schema/audit";
import { and, desc, eq, gte } from "drizzle-orm";

/** Who made a change: the operator (CLI, seed), or a signed-in gateway user or organisation. */
export type AuditActor = { kind: "operator" } | { kind: "user" | "organisation"; id: string };
export const OPERATOR: AuditActor = { kind: "operator" };

/** Every audited change: `<thing>.<verb>`. */
export type AuditAction =
  | "gateway_key.create"
  | "gateway_key.rotate"
  | "gateway_key.deactivate"
  | "party.fund"
  | "coin_rate.set"
  | "provider.create"
  | "provider.update"
  | "organisation.status";

export interface AuditEntry {
  actor: AuditActor;
  action: AuditAction;
  /** The changed row's id (key, party, organisation) or natural key (provider key, `coin_rate`). */
  target: string;
  /** JSON-safe (amounts as strings): what the target was before and is after, where it says something. */
  before?: unknown;
  after?: unknown;
}

/**
 * Appends entries. Call it with the transaction that makes the change, so the record and the change
 * commit or roll back together; the table refuses any later UPDATE or DELETE (migration 0020).
 */
export async function recordAudit(db: DbOrTx, ...entries: AuditEntry[]) {
  if (!entries.length) return;
  await db.insert(auditLog).values(
    entries.map((e) => ({
      actorKind: e.actor.kind,
      actorId: e.actor.kind === "operator" ? null : e.actor.id,
      action: e.action,
      target: e.target,
      before: e.before ?? null,
      after: e.after ?? null,
    })),
  );
}

/** Newest first: entries at or after `since`, of one target, at most `limit`. */
export function listAudit(db: DbOrTx, q: { since?: Date; target?: string; limit: number }) {
  return db
    .select()
    .from(auditLog)
    .where(
      and(
        q.since ? gte(auditLog.at, q.since) : undefined,
        q.target ? eq(auditLog.target, q.target) : undefined,
      ),
    )
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit);
}
