import { z } from "zod";

/** Default lease length: how long a dead worker's party waits for another (SETTLEMENT_LEASE_MS). */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * The settlement worker's variables, composed into the control plane's (`config.ts`), which also checks
 * RESERVATION_REAP_AFTER_MS against the gateways' request deadline and adds the idempotency TTL.
 */
export const SettlementConfig = z
  .object({
    SETTLEMENT_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(1000)
      .describe("Pause between two settlement passes of the worker (gateway reservations → ledger debits)."),
    SETTLEMENT_LEASE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(DEFAULT_LEASE_MS)
      .describe(
        "How long a settlement worker's lease on a party lasts unless renewed (at every step of its settlement): the wait before another worker takes over the parties of a worker that died. Longer than any one step (a 5,000-row statement).",
      ),
    RESERVATION_REAP_AFTER_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(60_000)
      .describe(
        "Age after which a reservation still in flight is failed and its funds released; must exceed GATEWAY_REQUEST_DEADLINE_MS + 1 s (start-up refuses less). A request served after all is then charged late.",
      ),
  })
  .transform((e) => ({
    intervalMs: e.SETTLEMENT_INTERVAL_MS,
    reapAfterMs: e.RESERVATION_REAP_AFTER_MS,
    leaseMs: e.SETTLEMENT_LEASE_MS,
  }));
