import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { partitionJobs } from "../features/partitions/jobs.ts";
import { createPartitionMaintenance } from "../features/partitions/maintain.ts";

/** No routes: the partition job runs in the worker; `maintenance` is its pass, for the operator and tests. */
export function composeArea({ config, db, logger }: Core) {
  return {
    maintenance: createPartitionMaintenance({ db, config: config.partitions, logger }),
    jobs: (q: QueueDeps) => partitionJobs({ ...q, db, config: config.partitions }),
  };
}
