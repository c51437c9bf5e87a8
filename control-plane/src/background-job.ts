import type { Redis } from "@stake/db/redis/client";
import { Queue, type Job as QueueJob, Worker } from "bullmq";
import { NodeAnswerRefused } from "./http/upstream.ts";
import type { Logger } from "./log.ts";
import type { JobQueue, QueuePayloads, RepeatingQueueName, WorkQueueName } from "./queues.ts";

/**
 * The one shape of background work (docs/architecture.md §12): the worker process builds every area's
 * jobs from the composition root, starts them all, reports ready while every one is running and closes them
 * on SIGTERM. A job owns its own transactions and advisory locks; nothing on the API side writes what a job
 * writes.
 */
export interface BackgroundJob {
  readonly name: string;
  start(): Promise<void>;
  isRunning(): boolean;
  /** Stops taking work and waits for the run in progress. */
  close(): Promise<void>;
}

/**
 * What the three chain followers (beacon-data, sui-rewards, polygon-rewards) implement: `runOnce` reads the
 * node from the cursor kept in Postgres and writes what it read, idempotently, so a failed run is repaired
 * by the next (docs/style.md §11).
 */
export interface ChainFollower<R extends object = object> {
  runOnce(): Promise<R>;
  /**
   * The chain check every pass starts with (`platform/chain-identity/guard.ts`), also run as the job starts so a
   * switched node is caught before the first pass is due.
   */
  verifyChain?(): Promise<boolean>;
}

/**
 * A follower's step that refuses a node's answer (past the byte cap, outside its schema, or breaking a
 * sanity rule such as finality beyond the head) logs it at error level, naming the rule, and fails: what
 * it had written before stays, nothing of the refused answer is written, and the next pass starts from the
 * same cursor, so the follower resumes by itself once the node is sane (docs/architecture.md §13).
 */
export async function refusingInsaneNodes<R>(logger: Logger, step: () => Promise<R>): Promise<R> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof NodeAnswerRefused)
      logger.error(
        { err, cause: String(err.cause ?? "") },
        `node answer refused, not advancing: ${err.message}`,
      );
    throw err;
  }
}

/** What every BullMQ-backed job needs: a queue connection (`forQueues: true`) and the key prefix. */
export interface QueueDeps {
  connection: Redis;
  /** `createRedisKeys(prefix).queuePrefix`. */
  prefix: string;
  logger: Logger;
}

/**
 * A pass run every `everyMs` as a repeatable BullMQ job: one scheduler per queue, so several worker
 * processes never run it twice per tick, and concurrency 1. A failed pass is logged; the next one starts
 * from whatever the pass keeps in Postgres.
 */
export function repeatingJob<R extends object>(
  opts: QueueDeps & { name: RepeatingQueueName; everyMs: number; run: () => Promise<R> },
): BackgroundJob {
  const { connection, prefix, logger } = opts;
  let queue: Queue | undefined;
  let worker: Worker | undefined;
  return {
    name: opts.name,
    async start() {
      queue = new Queue(opts.name, { connection, prefix });
      await queue.upsertJobScheduler(
        opts.name,
        { every: opts.everyMs },
        { name: "pass", opts: { removeOnComplete: 100, removeOnFail: 100 } },
      );
      worker = new Worker(
        opts.name,
        async () => {
          const result = await opts.run();
          logger.info(result as object, "pass done");
          return result;
        },
        { connection, prefix, concurrency: 1 },
      );
      // A refused node answer was logged at error level by the step (refusingInsaneNodes).
      worker.on("failed", (_job, err) => {
        if (!(err instanceof NodeAnswerRefused)) logger.warn({ err }, "pass failed");
      });
      worker.on("error", (err) => logger.error({ err }, "worker error"));
    },
    isRunning: () => worker?.isRunning() ?? false,
    async close() {
      await worker?.close();
      await queue?.close();
    },
  };
}

/** A chain follower's step as a repeating job (the one way the three followers run). */
export function followerJob(
  opts: QueueDeps & { name: RepeatingQueueName; everyMs: number; follower: ChainFollower },
): BackgroundJob {
  const job = repeatingJob({ ...opts, run: () => opts.follower.runOnce() });
  return {
    ...job,
    async start() {
      await job.start();
      // Not awaited: a node that is down must not hold the worker's readiness; the passes retry.
      opts.follower
        .verifyChain?.()
        .catch((err) => opts.logger.warn({ err }, "chain check at start failed; the next pass retries"));
    },
  };
}

/** A BullMQ worker of jobs other code enqueues on queue `name` (same name and prefix on both sides). */
export function queueJob<N extends WorkQueueName>(
  opts: QueueDeps & {
    name: N;
    concurrency: number;
    process: (job: QueueJob<QueuePayloads[N]>) => Promise<unknown>;
  },
): BackgroundJob {
  type D = QueuePayloads[N];
  let worker: Worker<D> | undefined;
  return {
    name: opts.name,
    async start() {
      worker = new Worker<D>(opts.name, opts.process, {
        connection: opts.connection,
        prefix: opts.prefix,
        concurrency: opts.concurrency,
      });
      worker.on("error", (err) => opts.logger.error({ err }, "worker error"));
    },
    isRunning: () => worker?.isRunning() ?? false,
    async close() {
      await worker?.close();
    },
  };
}

/**
 * The API's side of on-demand work: adds a job and waits up to `waitMs` for it to finish. Returns its
 * return value, or `undefined` when it did not complete in time (or failed: the worker logged why).
 */
export async function enqueueAndWait<D, R>(
  queue: Queue<D>,
  data: D,
  waitMs: number,
): Promise<{ done: true; value: R } | { done: false }> {
  const job = await (queue as Queue).add("run", data, {
    removeOnComplete: { age: 300, count: 1000 },
    removeOnFail: { age: 300, count: 1000 },
  });
  const id = job.id as string;
  let state: string = "waiting";
  await waitUntil(async () => {
    state = await queue.getJobState(id);
    return state === "completed" || state === "failed";
  }, waitMs);
  if (state !== "completed") return { done: false };
  return { done: true, value: (await queue.getJob(id))?.returnvalue as R };
}

/** The queue the API side enqueues a `queueJob`'s work on. */
export function createJobQueue<N extends WorkQueueName>(
  name: N,
  deps: { connection: Redis; prefix: string },
): JobQueue<N> {
  return new Queue<QueuePayloads[N]>(name, { connection: deps.connection, prefix: deps.prefix });
}

/**
 * Polls `done` until it holds or `timeoutMs` has passed; returns whether it held. How a read waits a small,
 * bounded time for the job it enqueued (docs/architecture.md §12) instead of doing the job's writes itself.
 */
export async function waitUntil(
  done: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await done()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
