import { REAP_MARGIN_MS } from "@stake/db/env";
import { longestGatewayDeadline } from "@stake/db/redis/gateway-deadlines";
import { chargeParty } from "./charge.ts";
import { DEFAULT_LEASE_MS } from "./config.ts";
import { drainReservationLog } from "./drain.ts";
import { eventCount, isDirty, markDirty, sampleDirty, unmarkDirty } from "./hot-repo.ts";
import { acquireLease, fenced, holdLease, LeaseLostError, type PartyLease } from "./lease.ts";
import { reapParty } from "./reap.ts";
import { partiesWithStaleInFlight, partyIdsAfter } from "./repo.ts";
import type { SettlementDeps, SettlementOptions } from "./types.ts";

export interface PartySettlement {
  drained: number;
  settled: number;
  reaped: number;
}

/**
 * drain (charging what it drains) → charge what Postgres still holds as registered (drained by the
 * account API, or left by a crash) → reap → drain (so the events of this pass's own steps are committed
 * and trimmed). Under a `lease`, each step first renews it (lease.ts `fenced`), and a lost lease stops
 * the settlement with LeaseLostError.
 */
export async function settlePartyOnce(
  deps: SettlementDeps,
  partyId: string,
  given: SettlementOptions,
  lease?: PartyLease,
): Promise<PartySettlement> {
  const options = lease ? fenced(given, lease) : given;
  const hold = async () => {
    if (lease) await holdLease(lease);
  };
  const drain = { ...options, charge: options };
  const first = await drainReservationLog(deps, partyId, drain);
  await hold();
  const charged = await chargeParty(deps, partyId, options);
  await hold();
  const reaped = await reapParty(deps, partyId, options);
  await hold();
  const last = await drainReservationLog(deps, partyId, drain);
  return {
    drained: first.drained + last.drained,
    settled: first.settled + charged + last.settled,
    reaped,
  };
}

/**
 * The reap age in force: the configured one, or, when a running gateway publishes a deadline it does not
 * exceed by REAP_MARGIN_MS (its GATEWAY_REQUEST_DEADLINE_MS differs from the worker's), just past that
 * deadline, so the reaper never releases a request a gateway is still serving.
 */
export async function reapAgeInForce(deps: SettlementDeps, configuredMs: number): Promise<number> {
  const longest = await longestGatewayDeadline(deps.redis, deps.keys);
  return Math.max(configuredMs, longest + REAP_MARGIN_MS + 1);
}

/**
 * One pass: settles each party of the dirty set that no other worker holds, under its lease (lease.ts),
 * until the set holds only parties this pass has seen. A party leaves the set only once settled, so one
 * whose settlement throws, or whose worker dies, stays for the next pass or worker; the error is logged,
 * not rethrown, so one party cannot stall the others. `reapAfterMs` in the result is the reap age the
 * pass used (reapAgeInForce); `busy` counts the parties another worker held.
 */
export async function runSettlementPass(deps: SettlementDeps, given: SettlementOptions) {
  const reapAfterMs = await reapAgeInForce(deps, given.reapAfterMs);
  const options = { ...given, reapAfterMs };
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const total = { parties: 0, drained: 0, settled: 0, reaped: 0, errors: 0, busy: 0, reapAfterMs };
  // A party marked again while this pass runs waits for the next pass, so busy parties cannot pin it.
  const seen = new Set<string>();
  for (;;) {
    const batch = await sampleDirty(deps.redis, deps.keys, options.partyBatch ?? 100);
    const fresh = batch.filter((p) => !seen.has(p));
    if (!fresh.length) return total;
    for (const partyId of fresh) {
      seen.add(partyId);
      const lease = await acquireLease(deps, partyId, leaseMs);
      if (!lease) {
        total.busy++;
        continue;
      }
      try {
        // Sampled while another worker held it, and settled through since: nothing left to do.
        if (!(await isDirty(deps.redis, deps.keys, partyId))) continue;
        const r = await settlePartyOnce(deps, partyId, options, lease);
        await leaveDirtySet(deps, partyId);
        total.parties++;
        total.drained += r.drained;
        total.settled += r.settled;
        total.reaped += r.reaped;
      } catch (err) {
        if (err instanceof LeaseLostError) {
          total.busy++;
          deps.logger?.warn({ partyId }, "settlement lease lost: another worker settles the party");
        } else {
          total.errors++;
          deps.logger?.error({ err: withoutQuery(err), partyId }, "settlement of party failed");
        }
      } finally {
        await lease.release().catch(() => {});
      }
    }
  }
}

/**
 * Takes a settled party off the dirty set, then puts it back if its stream holds events: an append after
 * the removal either found the stream empty (its gateway marks the party again) or is counted here.
 */
async function leaveDirtySet(deps: SettlementDeps, partyId: string) {
  await unmarkDirty(deps.redis, deps.keys, partyId);
  if ((await eventCount(deps.redis, deps.keys, partyId)) > 0)
    await markDirty(deps.redis, deps.keys, [partyId]);
}

/**
 * A failed statement's error carries its parameters (thousands of ids and timestamps, megabytes in a log
 * line): log what it failed with instead.
 */
function withoutQuery(err: unknown): unknown {
  if (err instanceof Error && err.message.startsWith("Failed query") && err.cause) return err.cause;
  return err;
}

/** Backstop for a lost SADD: marks every party dirty (the worker runs this every minute). */
export async function markAllPartiesDirty(deps: SettlementDeps): Promise<number> {
  let marked = 0;
  let after = "";
  for (;;) {
    const page = await partyIdsAfter(deps.db, after, 10_000);
    if (!page.length) return marked;
    await markDirty(deps.redis, deps.keys, page);
    marked += page.length;
    after = page[page.length - 1] as string;
  }
}

/**
 * Marks the parties whose in-flight reservations have passed `reapAfterMs`. Nothing else marks a party
 * whose gateway died or whose last reservation lost its reply: its traffic may have stopped, so without
 * this the reaper would wait for the minute's backstop after the reservation became reapable.
 */
export async function markStaleParties(deps: SettlementDeps, reapAfterMs: number, now = Date.now()) {
  const partyIds = await partiesWithStaleInFlight(deps.db, new Date(now - reapAfterMs), 10_000);
  await markDirty(deps.redis, deps.keys, partyIds);
  return partyIds.length;
}
