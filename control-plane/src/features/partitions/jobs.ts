import type { Db } from "@stake/db/client";
import { type BackgroundJob, type QueueDeps, repeatingJob } from "../../background-job.ts";
import { QUEUES } from "../../queues.ts";
import type { PartitionsConfig } from "./config.ts";
import { createPartitionMaintenance } from "./maintain.ts";

/**
 * The partition job: a repeating pass (one scheduler, so several workers never run it at
 * once) that creates partitions ahead and detaches those past retention (maintain.ts).
 */
export function partitionJobs(deps: QueueDeps & { db: Db; config: PartitionsConfig }): BackgroundJob[] {
  const maintenance = createPartitionMaintenance({
    db: deps.db,
    config: deps.config,
    logger: deps.logger.child({ component: "partitions" }),
  });
  return [
    repeatingJob({
      ...deps,
      name: QUEUES.partitions.name,
      everyMs: deps.config.intervalMs,
      run: () => maintenance.runOnce(),
    }),
  ];
}
