import type { DbOrTx } from "@stake/db/client";
import { sql } from "drizzle-orm";
import { emitEvents, type OutboxEvent } from "../../platform/outbox.ts";
import { LIFECYCLE, type Lifecycle, later, transitions } from "./lifecycle.ts";
import { col } from "./sql-arrays.ts";

/**
 * The one way a validator's lifecycle status changes (docs/spec.md "Validator lifecycle status", our
 * addition): a step is written and told as a `validator.status_changed` event in the same transaction, by
 * the indexer (what the chain showed) and by the operator's exit (what one organisation caused) alike.
 * Functions of `(tx, args)` like indexer-repo.ts; the caller holds the indexer's lock (`lockIndex`), so the
 * two never tell one step twice or not at all.
 */

/** A step the chain showed: every organisation tracking the validator sees it. */
interface ChainStep {
  pubkey: string;
  status: Lifecycle;
  time: Date;
  /** The epoch it was read in. */
  epoch: number;
  validatorIndex: number | null;
  organisationId?: undefined;
}

/** A step one organisation caused off the chain (the operator's exit): its own history and events only. */
export interface OwnStep extends Omit<ChainStep, "status" | "organisationId"> {
  status: "EXIT_REQUESTED" | "EXIT_SENT";
  /** The epoch it was for (the signed exit's); not stored. */
  epoch: number;
  organisationId: string;
}

export type StatusStep = ChainStep | OwnStep;

const OWN_COLUMN = { EXIT_REQUESTED: "exit_requested_at", EXIT_SENT: "exit_sent_at" } as const;

/**
 * Chain steps into the shared history. Of two observations of one status the earlier is kept (a backfill
 * finds earlier ones); the backfill writes through here without events, its pubkeys' statuses being told
 * when first seen.
 */
export async function insertHistory(tx: DbOrTx, steps: Omit<ChainStep, "validatorIndex">[]) {
  if (!steps.length) return;
  await tx.execute(sql`
    insert into beacon_status_history as h (pubkey, status, time, epoch)
    select p, s::validator_status, to_timestamp(t::float8 / 1000), e
    from unnest(${col(steps.map((h) => h.pubkey))}::text[], ${col(steps.map((h) => h.status))}::text[],
                ${col(steps.map((h) => h.time.getTime()))}::int8[], ${col(steps.map((h) => h.epoch))}::int[])
           as x(p, s, t, e)
    on conflict (pubkey, status) do update set time = excluded.time, epoch = excluded.epoch
      where excluded.time < h.time`);
}

/** Own steps onto the organisation's tracking row; the first time of a step recorded twice is kept. */
async function insertOwnSteps(tx: DbOrTx, steps: OwnStep[]) {
  for (const [status, column] of Object.entries(OWN_COLUMN)) {
    const these = steps.filter((s) => s.status === status);
    if (!these.length) continue;
    await tx.execute(sql`
      update beacon_tracked_validators t set ${sql.identifier(column)} = coalesce(t.${sql.identifier(column)}, to_timestamp(x.ms::float8 / 1000))
      from unnest(${col(these.map((s) => s.organisationId))}::text[], ${col(these.map((s) => s.pubkey))}::text[],
                  ${col(these.map((s) => s.time.getTime()))}::int8[]) as x(o, p, ms)
      where t.organisation_id = x.o and t.pubkey = x.p`);
  }
}

/**
 * Each tracking organisation's latest status of each validator as it sees it: the chain's history, and
 * CREATED and the exit steps that organisation caused itself.
 */
type View = { organisation_id: string; pubkey: string; latest: Lifecycle | null };
async function readViews(tx: DbOrTx, pubkeys: string[]) {
  const own = (column: string, status: Lifecycle) =>
    sql`case when t.${sql.identifier(column)} is not null then ${status}::validator_status end`;
  return tx.execute<View>(sql`
    select t.organisation_id, t.pubkey, greatest(
        (select max(h.status) from beacon_status_history h where h.pubkey = t.pubkey),
        ${own(OWN_COLUMN.EXIT_SENT, "EXIT_SENT")}, ${own(OWN_COLUMN.EXIT_REQUESTED, "EXIT_REQUESTED")},
        case when t.source = 'provisioned' then 'CREATED'::validator_status end)::text as latest
    from beacon_tracked_validators t where t.pubkey = any(${col(pubkeys)}::text[])`);
}

/**
 * Writes the steps and tells each organisation every status its view of the validator passes, in order:
 * a step past its latest is told with each status in between (an exit requested before the index saw the
 * validator active is told ACTIVE first), a step it already passed is recorded but not told again (the
 * chain's EXIT_SENT after the operator's own). Each event names the status before it in that organisation's
 * view.
 */
export async function changeStatuses(tx: DbOrTx, steps: StatusStep[]) {
  if (!steps.length) return;
  const rank = (s: Lifecycle) => LIFECYCLE.indexOf(s);
  const ordered = [...steps].sort((a, b) =>
    a.pubkey === b.pubkey ? rank(a.status) - rank(b.status) : a.pubkey < b.pubkey ? -1 : 1,
  );
  const views = new Map<string, View[]>();
  for (const v of await readViews(tx, [...new Set(ordered.map((s) => s.pubkey))]))
    views.set(v.pubkey, [...(views.get(v.pubkey) ?? []), v]);
  await insertHistory(
    tx,
    ordered.filter((s): s is ChainStep => s.organisationId === undefined),
  );
  await insertOwnSteps(
    tx,
    ordered.filter((s): s is OwnStep => s.organisationId !== undefined),
  );
  const events: OutboxEvent<"validator.status_changed">[] = [];
  for (const step of ordered) {
    for (const view of views.get(step.pubkey) ?? []) {
      if (step.organisationId !== undefined && step.organisationId !== view.organisation_id) continue;
      if (view.latest === step.status || later(view.latest, step.status) !== step.status) continue;
      for (const status of transitions(view.latest, step.status)) {
        events.push({
          owner: { kind: "organisation", id: view.organisation_id },
          type: "validator.status_changed",
          data: {
            pubkey: step.pubkey,
            validatorIndex: step.validatorIndex,
            previousStatus: view.latest,
            status,
            epoch: step.epoch,
          },
        });
        view.latest = status;
      }
    }
  }
  await emitEvents(tx, events as OutboxEvent[]);
}
