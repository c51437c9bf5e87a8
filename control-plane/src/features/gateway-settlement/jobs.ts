import {
  type BackgroundJob,
  createJobQueue,
  enqueueAndWait,
  type QueueDeps,
  queueJob,
} from "../../background-job.ts";
import { AppError } from "../../errors.ts";
import { type JobQueue, QUEUES } from "../../queues.ts";
import { drainReservationLog } from "./drain.ts";
import { startSettlementLoop } from "./loop.ts";

/**
 * Settlement as the worker's jobs (docs/architecture.md §9): the loop of loop.ts, started with the rest, and
 * the on-demand drain of one party's log into Postgres without charging (what the API did inline before;
 * idempotent and safe beside the loop's own drain).
 */
export function gatewaySettlementJobs(
  deps: Parameters<typeof startSettlementLoop>[0] & { queues: Omit<QueueDeps, "logger"> },
): BackgroundJob[] {
  let loop: ReturnType<typeof startSettlementLoop> | undefined;
  const settlement = { db: deps.db, redis: deps.redis, keys: deps.keys };
  return [
    {
      name: "gateway-settlement",
      async start() {
        loop = startSettlementLoop(deps);
      },
      isRunning: () => loop?.isRunning() ?? false,
      close: async () => loop?.close(),
    },
    queueJob({
      ...deps.queues,
      logger: deps.logger,
      name: QUEUES.reservationDrain.name,
      concurrency: 4,
      process: (job) => drainReservationLog(settlement, job.data.partyId),
    }),
  ];
}

/**
 * The API's side: a party's log drained by the worker, waited for up to `waitMs`; no drain in time is 503
 * with Retry-After (docs/spec.md, our additions).
 */
export function createDrainRequest(deps: {
  queue: JobQueue<typeof QUEUES.reservationDrain.name>;
  waitMs: number;
}) {
  return async function drainParty(partyId: string): Promise<void> {
    const run = await enqueueAndWait(deps.queue, { partyId }, deps.waitMs);
    if (!run.done) {
      throw new AppError("SERVICE_UNAVAILABLE", "Reservations are being recorded; retry shortly", {
        headers: { "retry-after": "5" },
      });
    }
  };
}

export const createDrainQueue = (deps: { connection: QueueDeps["connection"]; prefix: string }) =>
  createJobQueue(QUEUES.reservationDrain.name, deps);
