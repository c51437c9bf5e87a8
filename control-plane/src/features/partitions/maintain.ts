import type { Db, DbOrTx } from "@stake/db/client";
import { beaconIndexerCursor } from "@stake/db/schema/beacon-data";
import { sql } from "drizzle-orm";
import type { Logger } from "../../log.ts";
import { archiveReservationMonth, holdsOpenReservations } from "../gateway-settlement/archive.ts";
import { createRange, detachRange, disposeOf, type Range, rangesOf } from "./catalog-repo.ts";
import type { PartitionsConfig } from "./config.ts";

/**
 * The partitioned history tables (migration 0018) and how the job walks each: positions are epochs for
 * beacon_rewards and UTC milliseconds for the monthly tables; `align` finds the start of the range holding
 * a position, `step` the end of a range starting there.
 */
interface Scheme {
  table: "beacon_rewards" | "reservations" | "ledger_entries";
  key: "epoch" | "created_at";
  align(at: number): number;
  step(from: number): number;
  name(from: number): string;
  literal(at: number): string;
}

const monthly = (table: "reservations" | "ledger_entries"): Scheme => {
  const month = (at: number, add: number) => {
    const d = new Date(at);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1);
  };
  return {
    table,
    key: "created_at",
    align: (at) => month(at, 0),
    step: (from) => month(from, 1),
    name: (from) => `${table}_${new Date(from).toISOString().slice(0, 7).replace("-", "_")}`,
    literal: (at) => `'${new Date(at).toISOString()}'`,
  };
};

const epochs = (width: number): Scheme => ({
  table: "beacon_rewards",
  key: "epoch",
  align: (at) => at - (at % width),
  step: (from) => from + width,
  name: (from) => `beacon_rewards_e${String(from).padStart(10, "0")}`,
  literal: (at) => String(Math.trunc(at)),
});

/** Where one table stands: the position now, and below which whole ranges may go (null: keep all). */
interface Plan {
  scheme: Scheme;
  current: number;
  /** The lowest position rows may still arrive at (the first range starts there when there is none). */
  floor?: number;
  detachBelow: number | null;
  /** Called in the detaching transaction; "holds-open" keeps the range attached (rolled back). */
  archive?: (tx: DbOrTx, name: string) => Promise<"archived" | "holds-open">;
  /** Asked before detaching (without the lock), to skip a range `archive` would keep. */
  mustStay?: (tx: DbOrTx, name: string) => Promise<boolean>;
}

export interface PassResult {
  created: string[];
  detached: string[];
  /** Ranges past retention left attached (they still hold open reservations). */
  kept: string[];
}

class KeepAttached extends Error {}

/**
 * One pass of the partition job: for each partitioned table, creates the ranges from the
 * highest one (or the current one) up to PARTITIONS_AHEAD past the current one, then detaches every
 * range wholly below its retention bound and archives or drops it. Each change is its own transaction
 * under the table's advisory lock and a lock timeout (ATTACH/DETACH wait for running queries; a queued
 * DETACH would hold every new query of the table behind it), so a failed step is retried next pass.
 */
export function createPartitionMaintenance(deps: { db: Db; config: PartitionsConfig; logger: Logger }) {
  const { db, config, logger } = deps;

  function inTableTx<T>(table: string, fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      await tx.execute(sql`set local time zone 'UTC'`);
      await tx.execute(sql`set local lock_timeout = '10s'`);
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`partitions:${table}`}))`);
      return fn(tx);
    });
  }

  async function plans(now: number): Promise<Plan[]> {
    const months = config.reservationsRetentionMonths;
    const out: Plan[] = [
      {
        scheme: monthly("reservations"),
        current: now,
        detachBelow: months ? monthsBefore(now, months) : null,
        archive: archiveReservationMonth,
        mustStay: holdsOpenReservations,
      },
      // The ledger of record: a party's balance is the sum of all its entries, so no month is detached.
      { scheme: monthly("ledger_entries"), current: now, detachBelow: null },
    ];
    const [cursor] = await db.select().from(beaconIndexerCursor).limit(1);
    // Nothing indexed yet: no epoch to plan from (rows would land in the default partition meanwhile).
    if (cursor) {
      const epochSeconds = cursor.secondsPerSlot * cursor.slotsPerEpoch;
      const keep = Math.ceil((config.beaconRewardsRetentionDays * 86_400) / epochSeconds);
      out.push({
        scheme: epochs(config.beaconRewardsPartitionEpochs),
        current: cursor.epoch,
        // The backfill of a registered validator writes epochs down to the index's first one.
        floor: cursor.firstEpoch,
        // Never past the finalized checkpoint: a re-org may still replace (and un-sum) later rows.
        detachBelow: keep ? Math.min(cursor.finalizedEpoch, cursor.epoch - keep) : null,
      });
    }
    return out;
  }

  async function maintain(plan: Plan, result: PassResult) {
    const { scheme } = plan;
    const ranges = await inTableTx(scheme.table, (tx) => rangesOf(tx, scheme.table));
    let goal = scheme.align(plan.current);
    for (let i = 0; i <= config.ahead; i++) goal = scheme.step(goal);
    // From the highest range, so a job stopped for a while leaves no hole (its rows sit in the default).
    let from = ranges.length
      ? Math.max(...ranges.map((r) => r.to))
      : scheme.align(Math.min(plan.floor ?? plan.current, plan.current));
    for (; from < goal; from = scheme.step(from)) {
      const range = {
        name: scheme.name(from),
        from: scheme.literal(from),
        to: scheme.literal(scheme.step(from)),
      };
      await inTableTx(scheme.table, (tx) =>
        createRange(tx, { table: scheme.table, key: scheme.key, ...range }),
      );
      result.created.push(range.name);
    }
    if (plan.detachBelow === null) return;
    const bound = plan.detachBelow;
    const attached = await inTableTx(scheme.table, (tx) => rangesOf(tx, scheme.table));
    for (const range of attached.filter((r: Range) => r.to <= bound)) {
      try {
        if (await plan.mustStay?.(db, range.name)) throw new KeepAttached();
        await inTableTx(scheme.table, async (tx) => {
          await detachRange(tx, scheme.table, range.name);
          if ((await plan.archive?.(tx, range.name)) === "holds-open") throw new KeepAttached();
          await disposeOf(tx, range.name, config.detached);
        });
        result.detached.push(range.name);
      } catch (err) {
        if (!(err instanceof KeepAttached)) throw err;
        logger.warn({ partition: range.name }, "partition past retention kept: it holds open reservations");
        result.kept.push(range.name);
      }
    }
  }

  return {
    /** One pass at time `now` (ms; the clock by default). */
    async runOnce(now = Date.now()): Promise<PassResult> {
      const result: PassResult = { created: [], detached: [], kept: [] };
      for (const plan of await plans(now)) await maintain(plan, result);
      return result;
    },
  };
}

/** The start of the UTC month `months` whole months before the one holding `now`. */
function monthsBefore(now: number, months: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1);
}
