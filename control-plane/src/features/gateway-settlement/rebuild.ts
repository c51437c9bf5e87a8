import { drainReservationLog } from "./drain.ts";
import { writeAccount, writeRecords } from "./hot-repo.ts";
import { markEntriesApplied } from "./ledger-repo.ts";
import { liveReservationsAfter, partyTotals } from "./repo.ts";
import type { SettlementDeps } from "./types.ts";

/**
 * Recovery: rewrites one party's Redis state from Postgres, the ledger of record. Run with every gateway
 * stopped (a reservation taken meanwhile would be overwritten). First drains whatever the party's stream
 * still holds, then sets `balance` = Σ credits − Σ debits, `reserved` = Σ cost of reservations in
 * request_in_flight | registered | queued, the `applied` set to every credit entry id, and the records of
 * every open reservation and of those closed inside the idempotency window `ttlSeconds`.
 */
export async function rebuildPartyRedis(
  deps: SettlementDeps,
  partyId: string,
  options: { ttlSeconds: number; now?: () => number },
) {
  const now = (options.now ?? Date.now)();
  await drainReservationLog(deps, partyId);
  const { db, redis, keys } = deps;
  const { credits, debited, open } = await partyTotals(db, partyId);
  const balance = credits.reduce((s, c) => s + BigInt(c.amount), 0n) - debited;
  const reserved = open;
  await writeAccount(redis, keys, partyId, { balance, reserved, appliedCredits: credits.map((c) => c.id) });
  await markEntriesApplied(
    db,
    credits.filter((c) => !c.appliedAt).map((c) => c.id),
  );

  let records = 0;
  const closedSince = new Date(now - options.ttlSeconds * 1000);
  const cursor = { at: new Date(0), id: "" };
  for (;;) {
    const rows = await liveReservationsAfter(db, partyId, closedSince, cursor, 1000);
    if (!rows.length) break;
    await writeRecords(redis, keys, partyId, rows, options.ttlSeconds);
    records += rows.length;
    const last = rows[rows.length - 1] as (typeof rows)[number];
    cursor.at = last.createdAt;
    cursor.id = last.id;
  }
  return { partyId, balance, reserved, records };
}
