import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { Logger } from "../../log.ts";
import { markAllPartiesDirty, markStaleParties, runSettlementPass } from "./pass.ts";
import type { SettlementOptions } from "./types.ts";

/** How often every party is marked dirty again, the backstop for a gateway's lost SADD. */
const REMARK_EVERY_MS = 60_000;
/** How often the parties with reapable reservations are looked up (their lateness is this at most). */
const STALE_SCAN_EVERY_MS = 5_000;

/**
 * The settlement loop of the worker process (docs/architecture.md §6 step 7): one pass every `intervalMs`, passes never
 * overlapping. A plain timer rather than a BullMQ repeatable job: the pass is idempotent and settles each
 * party under a lease (lease.ts), so any number of workers run it side by side without a scheduler.
 */
export function startSettlementLoop(deps: {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  intervalMs: number;
  reapAfterMs: number;
  ttlSeconds: number;
  /** Length of the worker's lease on a party it settles (lease.ts). */
  leaseMs: number;
  logger: Logger;
  /** Called between the steps of a party's settlement (the fault tests pause a worker there to kill it). */
  afterStep?: SettlementOptions["afterStep"];
}) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let lastRemark = 0;
  let lastStaleScan = 0;
  let reapAgeWarned = deps.reapAfterMs;
  const settlement = { db: deps.db, redis: deps.redis, keys: deps.keys, logger: deps.logger };
  // Redis came back (a restart, a failover): a gateway may have lost the reply that told it to mark a party,
  // so every party is marked again on the next pass instead of waiting for the periodic backstop.
  let connectedOnce = deps.redis.status === "ready";
  deps.redis.on("ready", () => {
    if (connectedOnce) lastRemark = 0;
    connectedOnce = true;
  });

  async function tick() {
    try {
      if (Date.now() - lastRemark >= REMARK_EVERY_MS) {
        await markAllPartiesDirty(settlement);
        lastRemark = Date.now();
      }
      if (Date.now() - lastStaleScan >= STALE_SCAN_EVERY_MS) {
        await markStaleParties(settlement, deps.reapAfterMs);
        lastStaleScan = Date.now();
      }
      const result = await runSettlementPass(settlement, {
        reapAfterMs: deps.reapAfterMs,
        ttlSeconds: deps.ttlSeconds,
        leaseMs: deps.leaseMs,
        ...(deps.afterStep ? { afterStep: deps.afterStep } : {}),
      });
      if (result.reapAfterMs !== reapAgeWarned) {
        reapAgeWarned = result.reapAfterMs;
        deps.logger.warn(
          { configured: deps.reapAfterMs, inForce: result.reapAfterMs },
          "a running gateway publishes a request deadline RESERVATION_REAP_AFTER_MS does not exceed by the margin: reaping later, raise RESERVATION_REAP_AFTER_MS",
        );
      }
      if (result.settled || result.reaped || result.errors) deps.logger.info(result, "settlement pass");
    } catch (err) {
      deps.logger.error({ err }, "settlement pass failed");
    }
  }
  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => {
      current = tick().finally(schedule);
    }, deps.intervalMs);
  }
  current = tick().finally(schedule);

  return {
    isRunning: () => !stopped,
    /** Stops scheduling and waits for the pass in progress. */
    async close() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
