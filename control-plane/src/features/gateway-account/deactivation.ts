import type { DbOrTx } from "@stake/db/client";
import type { gatewayApiKeys } from "@stake/db/schema/gateway";
import { type AuditActor, recordAudit } from "../../platform/audit.ts";
import { emitEvents } from "../../platform/outbox.ts";

type KeyRow = typeof gatewayApiKeys.$inferSelect;

/**
 * Tells of keys just deactivated: a `gateway.key_deactivated` event (the webhook outbox,
 * docs/architecture.md §12) and an audit entry by `actor` for each, in `tx`, the transaction that
 * deactivated them, so the event is told exactly when a key stops working, and once: a key already
 * deactivated is not among `rows` (repo.ts `deactivateKeys`).
 */
export async function tellDeactivated(tx: DbOrTx, rows: KeyRow[], actor: AuditActor) {
  await emitEvents(
    tx,
    rows.map((k) => ({
      owner: { kind: "gateway_user" as const, id: k.userId },
      type: "gateway.key_deactivated" as const,
      data: { keyId: k.id, start: k.start, deactivatedAt: (k.deactivatedAt ?? new Date()).toISOString() },
    })),
  );
  await recordAudit(
    tx,
    ...rows.map((k) => ({
      actor,
      action: "gateway_key.deactivate" as const,
      target: k.id,
      before: { active: true },
      after: { active: false, deactivatedAt: k.deactivatedAt },
    })),
  );
  return rows;
}
