import type { Db, DbOrTx } from "@stake/db/client";
import { formatCoins } from "@stake/db/coin";
import { emitEvent } from "../../platform/outbox.ts";
import { crossLowBalance } from "./repo.ts";

/**
 * The one unit of work that charges (docs/architecture.md §14): `write` records settled reservations with
 * their debit entry (repo.ts `upsertReservations` with a debit id while draining, `debitSettled` for what
 * Postgres held as registered), and in the same transaction the balance of record is compared with the
 * party's low-balance threshold: a crossing downwards is told once, as `gateway.balance_low` through the
 * webhook outbox, committed with the debit that caused it or not at all.
 */
export async function commitDebit(db: Db, partyId: string, write: (tx: DbOrTx) => Promise<void>) {
  await db.transaction(async (tx) => {
    await write(tx);
    const low = await crossLowBalance(tx, partyId);
    if (!low) return;
    await emitEvent(tx, {
      owner: { kind: "gateway_user", id: low.userId },
      type: "gateway.balance_low",
      data: { partyId, balance: formatCoins(low.balance), threshold: formatCoins(low.threshold) },
    });
  });
}
