import type { DbOrTx } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { ledgerCreditRefs, ledgerEntries } from "@stake/db/schema/gateway";
import { and, eq, inArray } from "drizzle-orm";

/** Ledger entries written by funding and marked applied by funding and rebuild (the ledger of record). */

/**
 * Records a credit (unique `ref`; a repeat inserts nothing) and returns the entry holding that ref. The
 * ref is claimed in `ledger_credit_refs` first, in the caller's transaction (funding.ts opens it): the
 * ledger is partitioned by month, so no index on it can make a ref unique across months.
 */
export async function insertCredit(tx: DbOrTx, input: { partyId: string; amount: bigint; ref: string }) {
  const entry = { id: newId("ledgerEntry"), createdAt: new Date() };
  const claimed = await tx
    .insert(ledgerCreditRefs)
    .values({ externalRef: input.ref, entryId: entry.id, createdAt: entry.createdAt })
    .onConflictDoNothing()
    .returning({ ref: ledgerCreditRefs.externalRef });
  const created = claimed.length > 0;
  if (created)
    await tx.insert(ledgerEntries).values({
      ...entry,
      partyId: input.partyId,
      kind: "credit",
      amount: input.amount.toString(),
      externalRef: input.ref,
    });
  const [found] = await tx
    .select({ entry: ledgerEntries })
    .from(ledgerCreditRefs)
    .innerJoin(
      ledgerEntries,
      and(
        eq(ledgerEntries.id, ledgerCreditRefs.entryId),
        eq(ledgerEntries.createdAt, ledgerCreditRefs.createdAt),
      ),
    )
    .where(eq(ledgerCreditRefs.externalRef, input.ref));
  return found && { ...found.entry, created };
}

export async function markEntriesApplied(db: DbOrTx, ids: string[]) {
  if (ids.length)
    await db.update(ledgerEntries).set({ appliedAt: new Date() }).where(inArray(ledgerEntries.id, ids));
}
