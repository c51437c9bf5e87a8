import type { Db } from "@stake/db/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { markAllPartiesDirty, runSettlementPass } from "@stake/db/settlement";
import type { Redis } from "ioredis";
import type { Logger } from "../../log.ts";

/** How often every party is marked dirty again, the backstop for a gateway's lost SADD. */
const REMARK_EVERY_MS = 60_000;

/**
 * The settlement loop of the worker process (DESIGN §6 step 7): one pass every `intervalMs`, passes never
 * overlapping. A plain timer rather than a BullMQ repeatable job: the pass is idempotent and takes its
 * parties off a Redis set with SPOP, so several workers can run it side by side without a scheduler.
 */
export function startSettlementLoop(deps: {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  intervalMs: number;
  reapAfterMs: number;
  logger: Logger;
}) {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let lastRemark = 0;
  const settlement = { db: deps.db, redis: deps.redis, keys: deps.keys, logger: deps.logger };

  async function tick() {
    try {
      if (Date.now() - lastRemark >= REMARK_EVERY_MS) {
        await markAllPartiesDirty(settlement);
        lastRemark = Date.now();
      }
      const result = await runSettlementPass(settlement, { reapAfterMs: deps.reapAfterMs });
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
