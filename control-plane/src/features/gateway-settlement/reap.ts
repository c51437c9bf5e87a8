import { failInFlight } from "./hot-repo.ts";
import { staleInFlight } from "./repo.ts";
import type { SettlementDeps, SettlementOptions } from "./types.ts";

const REAP_BATCH = 500;

/**
 * Fails reservations still in flight past `reapAfterMs` (their gateway died mid-request) through
 * finalize.lua, which moves only an in-flight reservation, so it can never release twice. The `failed`
 * events reach Postgres with the next drain.
 */
export async function reapParty(
  deps: SettlementDeps,
  partyId: string,
  options: Pick<SettlementOptions, "reapAfterMs" | "now" | "ttlSeconds">,
): Promise<number> {
  const now = (options.now ?? Date.now)();
  const rows = await staleInFlight(deps.db, partyId, new Date(now - options.reapAfterMs), REAP_BATCH);
  if (!rows.length) return 0;
  const replies = await failInFlight(deps.redis, deps.keys, partyId, rows, now, options.ttlSeconds);
  let reaped = 0;
  rows.forEach((r, i) => {
    const [outcome] = replies[i] ?? [];
    if (outcome === "OK") reaped++;
    // NOT_IN_FLIGHT: the gateway finalized it after all and the next drain records that.
    else if (outcome === "NOT_FOUND")
      deps.logger?.warn({ reservation: r.id, partyId }, "in-flight reservation unknown to Redis");
  });
  return reaped;
}
