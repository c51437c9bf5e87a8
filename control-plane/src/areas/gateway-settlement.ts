import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { gatewaySettlementJobs } from "../features/gateway-settlement/jobs.ts";

/** No routes: settlement runs in the worker only. */
export function composeArea({ config, db, redis, keys, logger }: Core) {
  return {
    jobs: (q: QueueDeps) =>
      gatewaySettlementJobs({ db, redis, keys, ...config.settlement, logger, queues: q }),
  };
}
