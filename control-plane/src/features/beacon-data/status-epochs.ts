import type { DbOrTx } from "@stake/db/client";
import { beaconStatus } from "@stake/db/schema/beacon-data";
import { sql } from "drizzle-orm";
import type { ApiValidator } from "./client.ts";
import { col } from "./sql-arrays.ts";

/** A Beacon API validator status, in the order of the `beacon_status` enum. */
export type BeaconStatus = (typeof beaconStatus.enumValues)[number];
export interface StatusEpoch {
  pubkey: string;
  status: BeaconStatus;
  /** Null: a status without an epoch field that passed between two reads. */
  epoch: number | null;
}

const FAR_FUTURE = (2n ** 64n - 1n).toString();
const UNSLASHED: BeaconStatus[] = [
  "pending_initialized",
  "pending_queued",
  "active_ongoing",
  "active_exiting",
  "exited_unslashed",
  "withdrawal_possible",
  "withdrawal_done",
];
/** A slashing starts the exit itself: active_slashed instead of active_exiting (consensus-specs `slash_validator`). */
const SLASHED = UNSLASHED.map((s) =>
  s === "active_exiting" ? "active_slashed" : s === "exited_unslashed" ? "exited_slashed" : s,
);
const isStatus = (s: string): s is BeaconStatus => (beaconStatus.enumValues as readonly string[]).includes(s);

/**
 * The beacon statuses a validator has reached by the state of epoch `readEpoch`, each with the epoch it
 * happened in by the rules (ethereum/beacon-APIs validator status, from the state's fields): pending_queued
 * at `activation_eligibility_epoch`, active_ongoing at `activation_epoch`, exited_* at `exit_epoch`,
 * withdrawal_possible at `withdrawable_epoch`. pending_initialized, active_exiting / active_slashed and
 * withdrawal_done have no field: `readEpoch` when this read shows the validator in it, null when it passed
 * unseen (the first read already shows a later status).
 */
export function statusEpochsOf(v: ApiValidator, readEpoch: number): StatusEpoch[] {
  const status = v.status;
  if (!isStatus(status)) return [];
  const path = v.validator.slashed || status === "active_slashed" ? SLASHED : UNSLASHED;
  const reached = path.indexOf(status);
  if (reached < 0) return [];
  const field = (e: string | undefined) => (e === undefined || e === FAR_FUTURE ? null : Number(e));
  const fields: Partial<Record<BeaconStatus, number | null>> = {
    pending_queued: field(v.validator.activation_eligibility_epoch),
    active_ongoing: field(v.validator.activation_epoch),
    exited_unslashed: field(v.validator.exit_epoch),
    exited_slashed: field(v.validator.exit_epoch),
    withdrawal_possible: field(v.validator.withdrawable_epoch),
  };
  return path.slice(0, reached + 1).map((s) => ({
    pubkey: v.validator.pubkey.toLowerCase(),
    status: s,
    epoch: s in fields ? (fields[s] ?? null) : s === status ? readEpoch : null,
  }));
}

/**
 * Stores what the state of `readEpoch` showed. Of two reads of one status the earlier is kept (a registered
 * pubkey's backfill reads older epochs after newer ones): a status seen in the earlier read has its epoch.
 */
export async function insertStatusEpochs(tx: DbOrTx, readEpoch: number, rows: StatusEpoch[]) {
  if (!rows.length) return;
  await tx.execute(sql`
    insert into beacon_status_epochs as h (pubkey, status, epoch, read_epoch)
    select p, s::beacon_status, e, ${readEpoch}::int
    from unnest(${col(rows.map((r) => r.pubkey))}::text[], ${col(rows.map((r) => r.status))}::text[],
                ${col(rows.map((r) => r.epoch))}::int[]) as x(p, s, e)
    on conflict (pubkey, status) do update set epoch = excluded.epoch, read_epoch = excluded.read_epoch
      where excluded.read_epoch < h.read_epoch`);
}
