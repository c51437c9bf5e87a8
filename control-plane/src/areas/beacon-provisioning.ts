import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../compose.ts";
import { createBeaconApi } from "../features/beacon-data/client.ts";
import { createTracking } from "../features/beacon-data/tracking.ts";
import { createProvisionQueue, provisionJob } from "../features/beacon-provisioning/jobs.ts";
import { resolveNetwork } from "../features/beacon-provisioning/networks.ts";
import { createProvisionProcessor } from "../features/beacon-provisioning/provision.ts";
import { createProvisioningRepo } from "../features/beacon-provisioning/repo.ts";
import { beaconProvisioningArea } from "../features/beacon-provisioning/routes.ts";
import { createProvisioningService } from "../features/beacon-provisioning/service.ts";

export function composeArea({ config, db, redis, logger, queuePrefix }: Core) {
  const network = resolveNetwork(config.eth);
  const tracking = createTracking(db);
  const repo = createProvisioningRepo(db);
  const service = createProvisioningService({
    repo,
    queue: createProvisionQueue({ connection: redis, prefix: queuePrefix }),
    beacon: createBeaconApi({
      url: config.eth.beaconUrl,
      timeoutMs: config.eth.beaconTimeoutMs,
      maxBytes: config.nodeResponseMaxBytes,
    }),
    eth: config.eth,
    network,
    tracking,
    quota: config.eth.provisionQuota,
  });
  return {
    routes: beaconProvisioningArea({ service }),
    jobs: (q: QueueDeps, options: { provisionConcurrency?: number }) => [
      provisionJob({
        ...q,
        repo,
        run: createProvisionProcessor({ repo, eth: config.eth, network, tracking, logger }),
        concurrency: options.provisionConcurrency ?? 1,
      }),
    ],
  };
}
