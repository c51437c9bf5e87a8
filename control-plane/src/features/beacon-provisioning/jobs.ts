import type { Db } from "@stake/db/client";
import { type BackgroundJob, createJobQueue, type QueueDeps, queueJob } from "../../background-job.ts";
import { AppError, BuilderError } from "../../errors.ts";
import { emitEvent } from "../../platform/outbox.ts";
import { type JobQueue, QUEUES } from "../../queues.ts";
import type { ProvisioningRepo } from "./repo.ts";

export type ProvisionQueue = JobQueue<typeof QUEUES.provision.name>;

/**
 * The reason a client reads on a FAILED provision: a refusal of its request is told as is; anything else
 * (a database or programming fault) stays in the log, since its text can carry SQL, paths or key material.
 */
export function failureReason(err: unknown): string {
  if (err instanceof BuilderError || err instanceof AppError) return err.message;
  return "The validators could not be created because of an internal error; the operator has been alerted.";
}

/**
 * The provision jobs the API enqueues (jobId = provisionId). After the last attempt the provision becomes
 * FAILED with the error as reason; the job's transaction has already rolled back, so nothing partial remains.
 */
export function provisionJob(
  deps: QueueDeps & {
    /** Opens the FAILED status's unit of work. */
    db: Db;
    repo: ProvisioningRepo;
    run: (provisionId: string) => Promise<void>;
    concurrency: number;
  },
): BackgroundJob {
  return queueJob({
    ...deps,
    name: QUEUES.provision.name,
    async process(job) {
      try {
        await deps.run(job.data.provisionId);
      } catch (err) {
        const last = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
        deps.logger.error({ err, provisionId: job.data.provisionId, last }, "provision job failed");
        if (last) {
          const { provisionId } = job.data;
          const reason = failureReason(err);
          // The FAILED status and its event commit together (the webhook outbox).
          await deps.db.transaction(async (tx) => {
            const provision = await deps.repo.findProvision(provisionId, undefined, tx);
            if (provision?.status !== "IN_PROGRESS") return;
            await deps.repo.setProvisionStatus(provisionId, "FAILED", { reason }, tx);
            await emitEvent(tx, {
              owner: { kind: "organisation", id: provision.organisationId },
              type: "provision.failed",
              data: { provisionId, reason },
            });
          });
        }
        throw err;
      }
    },
  });
}

/** The queue the HTTP side enqueues provision jobs on. */
export const createProvisionQueue = (deps: { connection: QueueDeps["connection"]; prefix: string }) =>
  createJobQueue(QUEUES.provision.name, deps);
