import { drainReservationLog } from "./drain.ts";
import { appliedCredits, readBalance, scanRecords } from "./hot-repo.ts";
import { allPartyIds, auditBreaks, openReservations, partyExists, partyTotals, statusesOf } from "./repo.ts";
import { OPEN_STATUSES, type SettlementDeps, type Status } from "./types.ts";

export interface LedgerDifference {
  partyId: string;
  /** What differs: `balance`, `reserved`, `reservation <id>`, `credit <id>`, `debit <id>`, … */
  item: string;
  /** The two sides, e.g. `Redis 5 ≠ Postgres 3`. */
  detail: string;
}

/**
 * Compares one party's Redis state with Postgres, the ledger of record, after draining its event stream
 * (idempotent, as the worker does): balance = credits − debits; reserved = Σ cost of open reservations,
 * in both stores; every open reservation and every record Redis holds at the same status in both; the
 * applied-credit set = the credit entries; and the audit trail (each debit = Σ the reservations listing
 * it, each settled paid reservation lists one, each credit applied). Meant for a quiet ledger: under load
 * a request between the two reads shows as a difference.
 */
export async function checkParty(deps: SettlementDeps, partyId: string): Promise<LedgerDifference[]> {
  await drainReservationLog(deps, partyId);
  const { db, redis, keys } = deps;
  const out: LedgerDifference[] = [];
  const compare = (item: string, left: [string, unknown], right: [string, unknown]) => {
    if (String(left[1]) !== String(right[1]))
      out.push({ partyId, item, detail: `${left[0]} ${left[1]} ≠ ${right[0]} ${right[1]}` });
  };
  const differ = (item: string, inRedis: unknown, inPostgres: unknown) =>
    compare(item, ["Redis", inRedis], ["Postgres", inPostgres]);

  const [hot, totals, open, records, applied, breaks] = await Promise.all([
    readBalance(redis, keys, partyId),
    partyTotals(db, partyId),
    openReservations(db, partyId),
    scanRecords(redis, keys, partyId),
    appliedCredits(redis, keys, partyId),
    auditBreaks(db, partyId),
  ]);
  const credited = totals.credits.reduce((s, c) => s + BigInt(c.amount), 0n);
  differ("balance", hot.balance, credited - totals.debited);
  differ("reserved", hot.reserved, totals.open);
  const openInRedis = records.filter((r) => OPEN_STATUSES.includes(r.status as Status));
  differ(
    "reserved (Σ open records)",
    openInRedis.reduce((s, r) => s + BigInt(r.cost), 0n),
    totals.open,
  );

  const inRedis = new Map(records.map((r) => [r.id, r.status]));
  for (const r of open) differ(`reservation ${r.id}`, inRedis.get(r.id) ?? "absent", r.status);
  const openIds = new Set(open.map((r) => r.id));
  const closed = records.filter((r) => !openIds.has(r.id));
  const inPostgres = new Map(
    (
      await statusesOf(
        db,
        closed.map((r) => r.id),
      )
    ).map((r) => [r.id, r.status]),
  );
  for (const r of closed) differ(`reservation ${r.id}`, r.status, inPostgres.get(r.id) ?? "absent");

  const appliedSet = new Set(applied);
  for (const c of totals.credits)
    if (!appliedSet.has(c.id)) differ(`credit ${c.id}`, "not applied", "credit");
  const creditIds = new Set(totals.credits.map((c) => c.id));
  for (const id of applied) if (!creditIds.has(id)) differ(`credit ${id}`, "applied", "absent");

  for (const d of breaks.debits)
    differ(`debit ${d.id}`, `Σ listed ${d.listed ?? "none"}`, `amount ${d.amount ?? "absent"}`);
  differ("settled paid reservations listing no debit", 0, breaks.unlistedSettled);
  differ("credits not marked applied", 0, breaks.unappliedCredits);
  return out;
}

/** The one party asked for (undefined if it does not exist), or every party. */
export async function partiesToCheck(deps: Pick<SettlementDeps, "db">, partyId: string | undefined) {
  if (partyId === undefined) return allPartyIds(deps.db);
  return (await partyExists(deps.db, partyId)) ? [partyId] : undefined;
}
