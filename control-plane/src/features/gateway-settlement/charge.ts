import { newId } from "@stake/db/ids";
import { commitDebit } from "./debit.ts";
import { settleRecords } from "./hot-repo.ts";
import { chargeable, debitSettled } from "./repo.ts";
import type { SettlementDeps, SettlementOptions } from "./types.ts";

const SETTLE_BATCH = 5000;

/**
 * Charges a party's `registered` reservations in batches, two steps each: settle.lua moves them to
 * `settled` with `balance −= cost, reserved −= cost` (Redis), then one statement marks them settled and
 * writes the one debit entry of the batch that they list (Postgres). Idempotent by reservation id:
 * settle.lua answers ALREADY for a reservation it settled before, which still counts as done, and
 * Postgres skips rows already settled, so a crash between the two is repaired by the next pass.
 */
export async function chargeParty(
  deps: SettlementDeps,
  partyId: string,
  options: Pick<SettlementOptions, "now" | "afterStep" | "ttlSeconds">,
): Promise<number> {
  const now = options.now ?? Date.now;
  let settled = 0;
  // A reservation Redis no longer knows stays behind (logged); the cursor moves past it.
  const cursor = { at: new Date(0), id: "" };
  for (;;) {
    const rows = await chargeable(deps.db, partyId, cursor, SETTLE_BATCH);
    if (!rows.length) return settled;
    const lastRow = rows[rows.length - 1] as (typeof rows)[number];
    cursor.at = lastRow.createdAt;
    cursor.id = lastRow.id;

    // Postgres gets the same updatedAt as the Redis record, so a rebuilt record is identical.
    const settledAt = now();
    const replies = await settleRecords(deps.redis, deps.keys, partyId, rows, settledAt, options.ttlSeconds);
    const done: string[] = [];
    rows.forEach((r, i) => {
      const [outcome, status] = replies[i] ?? [];
      if (outcome === "OK" || outcome === "ALREADY") done.push(r.id);
      else
        deps.logger?.warn(
          { reservation: r.id, partyId, outcome, status },
          "settlement skipped a reservation",
        );
    });
    await options.afterStep?.("settled-in-redis", partyId);
    // Rows come oldest first: the first one's time bounds the months the update reads.
    const takenFrom = (rows[0] as (typeof rows)[number]).createdAt;
    if (done.length) {
      const debitId = newId("ledgerEntry");
      await commitDebit(deps.db, partyId, (tx) =>
        debitSettled(tx, { partyId, ids: done, takenFrom }, new Date(settledAt), debitId),
      );
    }
    await options.afterStep?.("debited-in-postgres", partyId);
    settled += done.length;
    if (rows.length < SETTLE_BATCH) return settled;
  }
}
