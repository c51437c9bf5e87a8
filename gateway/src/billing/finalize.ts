import type { Logger } from "../log.ts";
import type { GatewayMetrics } from "../metrics.ts";
import type { FinalizeOutcome, Ledger, ReservationHandle, ServedFacts } from "./ledger.ts";

/**
 * How long a finalize is retried while Redis is unreachable. A `registered` one that lands after the
 * reaper released its reservation is still charged (late, under a new reservation: ledger.finalize), so
 * the window only bounds how long a Redis outage may last before a request served just before it goes
 * unpaid. Cheap to hold: while Redis is away nothing new is reserved, so only the requests in flight when
 * it went away are waiting, each retrying at most once a second.
 */
const FINALIZE_RETRY_MS = 5 * 60_000;

export interface FinalizeDeps {
  ledger: Ledger;
  logger: Logger;
  metrics: GatewayMetrics;
}

/**
 * Never rejects: the early finalize runs while the body streams, before anything awaits it, and by then
 * the client's answer is decided anyway. While Redis is out of reach (restarting from its append-only
 * file) the finalize is retried for FINALIZE_RETRY_MS, so a request served meanwhile is still charged;
 * one given up on is failed (released, uncharged) by the worker's reaper.
 */
export async function finalizeRetrying(
  deps: FinalizeDeps,
  r: ReservationHandle,
  outcome: FinalizeOutcome,
  facts?: ServedFacts,
): Promise<void> {
  const { logger, ledger, metrics } = deps;
  const giveUpAt = Date.now() + FINALIZE_RETRY_MS;
  for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
    try {
      const id = r.id;
      const done = await ledger.finalize(r, outcome, facts);
      if (!done.ok)
        logger.error({ reservation: id, outcome, done }, "finalize could not move the reservation");
      else if (done.lateCharge)
        logger.warn(
          { reservation: id, charge: done.lateCharge },
          "served after the reaper released the reservation: charged under a new one",
        );
      return;
    } catch (err) {
      metrics.redisError("finalize");
      if (Date.now() + wait > giveUpAt) {
        logger.error({ reservation: r.id, outcome, err }, "finalize failed; the reaper will release it");
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
