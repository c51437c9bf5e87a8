import { bigint, index, jsonb, pgEnum, pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const auditActorKind = pgEnum("audit_actor_kind", ["operator", "user", "organisation"]);

/**
 * Who changed what, append-only: one row per audited change, written in the change's own transaction
 * (so a change that rolls back leaves none). Postgres refuses UPDATE, DELETE and TRUNCATE on it (the
 * trigger in migration 0020), so not even the application can rewrite its history.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    /** Commit order within one writer; `at` orders across them. */
    id: bigint({ mode: "bigint" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp({ withTimezone: true }).notNull().defaultNow(),
    actorKind: auditActorKind().notNull(),
    /** The user's or organisation's id; null for the operator (the CLI runs with the database's rights). */
    actorId: text(),
    /** `<thing>.<verb>`, e.g. `gateway_key.create`, `party.fund`, `coin_rate.set`, `organisation.status`. */
    action: text().notNull(),
    /** The changed row's id (a key, party, provider key, organisation id). */
    target: text().notNull(),
    before: jsonb(),
    after: jsonb(),
  },
  (t) => [index("audit_log_target_at_idx").on(t.target, t.at), index("audit_log_at_idx").on(t.at)],
);

export type AuditRow = typeof auditLog.$inferSelect;
