import type { DbOrTx } from "@stake/db/client";
import { archivedDebitListings } from "@stake/db/schema/gateway";
import { sql } from "drizzle-orm";
import { OPEN_STATUSES } from "./types.ts";

/**
 * Settlement's side of archiving a month of reservations (the partition job's port), called in
 * the transaction that detached the month: a month still holding an open reservation is not archived
 * (Redis holds its record and settlement still charges it), and what the month's reservations listed
 * per debit is kept, so the ledger check still finds each debit = Σ what lists it (repo.ts auditBreaks).
 */
export async function archiveReservationMonth(
  tx: DbOrTx,
  partition: string,
): Promise<"archived" | "holds-open"> {
  if (await holdsOpenReservations(tx, partition)) return "holds-open";
  const month = sql.identifier(partition);
  await tx.execute(sql`
    insert into ${archivedDebitListings} (debit_id, party_id, listed)
    select debit_id, party_id, sum(cost) from ${month} where debit_id is not null group by 1, 2
    on conflict (debit_id) do update set listed = ${archivedDebitListings.listed} + excluded.listed`);
  return "archived";
}

/**
 * Whether a month of reservations holds an open one. Also asked before detaching, so a month kept for an
 * open reservation does not take the table's exclusive lock every pass only to be rolled back.
 */
export async function holdsOpenReservations(tx: DbOrTx, partition: string): Promise<boolean> {
  const open = sql.raw(OPEN_STATUSES.map((s) => `'${s}'`).join(", "));
  const [held] = await tx.execute<{ open: boolean }>(
    sql`select exists (select 1 from ${sql.identifier(partition)} where status in (${open})) as open`,
  );
  return held?.open ?? false;
}
