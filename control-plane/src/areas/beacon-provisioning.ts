import type { QueueDeps } from "../background-job.ts";
import { resolveNetwork } from "../chains/beacon-networks.ts";
import type { Core } from "../core.ts";
import { createBeaconApi, createExecutionApi } from "../features/beacon-data/client.ts";
import { createTracking } from "../features/beacon-data/tracking.ts";
import { createExitService } from "../features/beacon-provisioning/exits.ts";
import { createProvisionQueue, provisionJob } from "../features/beacon-provisioning/jobs.ts";
import { createProvisionProcessor } from "../features/beacon-provisioning/provision.ts";
import { createProvisioningRepo } from "../features/beacon-provisioning/repo.ts";
import { beaconProvisioningArea } from "../features/beacon-provisioning/routes.ts";
import { createProvisioningService } from "../features/beacon-provisioning/service.ts";
import { createKeyRateLimit } from "../http/abuse-limits.ts";

export function composeArea({ config, db, redis, keys, logger, queuePrefix }: Core) {
  const network = resolveNetwork(config.eth);
  const tracking = createTracking(db);
  const repo = createProvisioningRepo(db);
  const beacon = createBeaconApi({
    url: config.eth.beaconUrl,
    timeoutMs: config.eth.beaconTimeoutMs,
    maxBytes: config.nodeResponseMaxBytes,
  });
  const service = createProvisioningService({
    repo,
    queue: createProvisionQueue({ connection: redis, prefix: queuePrefix }),
    beacon,
    eth: config.eth,
    network,
    tracking,
    quota: config.eth.provisionQuota,
  });
  // Exits and EL requests: the operator's keys, the node's pool, the system contracts' fees.
  const exits = createExitService({
    db,
    repo,
    beacon,
    execution: createExecutionApi({
      url: config.beaconData.executionUrl,
      timeoutMs: config.beaconData.executionTimeoutMs,
      maxBytes: config.nodeResponseMaxBytes,
    }),
    eth: config.eth,
    network,
    tracking,
    // Each call signs up to 100 exits: bounded per organisation, as the register endpoint is.
    limit: createKeyRateLimit({
      redis,
      keys,
      name: "exit-signing",
      perMinute: config.eth.exitSigningPerMinute,
    }),
    logger: logger.child({ component: "beacon-exits" }),
  });
  return {
    routes: [beaconProvisioningArea({ service, exits })],
    jobs: (q: QueueDeps, options: { provisionConcurrency?: number }) => [
      provisionJob({
        ...q,
        db,
        repo,
        run: createProvisionProcessor({ db, repo, eth: config.eth, network, tracking, logger }),
        concurrency: options.provisionConcurrency ?? 1,
      }),
    ],
  };
}
