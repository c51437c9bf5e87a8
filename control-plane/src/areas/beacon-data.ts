import type { QueueDeps } from "../background-job.ts";
import { resolveNetwork } from "../chains/beacon-networks.ts";
import type { Core } from "../core.ts";
import { createBeaconApi, createExecutionApi } from "../features/beacon-data/client.ts";
import { createIndexer } from "../features/beacon-data/indexer.ts";
import { createIndexerRepo } from "../features/beacon-data/indexer-repo.ts";
import { beaconDataJobs, createRegistrationsQueue } from "../features/beacon-data/jobs.ts";
import { createRatesRepo } from "../features/beacon-data/rates-repo.ts";
import { createBeaconDataRepo } from "../features/beacon-data/repo.ts";
import { beaconDataArea } from "../features/beacon-data/routes.ts";
import { createBeaconDataService } from "../features/beacon-data/service.ts";
import { createKeyRateLimit } from "../http/abuse-limits.ts";
import { createChainServing } from "../platform/chain-identity/guard.ts";

export function composeArea({ config, db, reads, redis, keys, logger, queuePrefix }: Core) {
  const beacon = createBeaconApi({
    url: config.eth.beaconUrl,
    timeoutMs: config.eth.beaconTimeoutMs,
    maxBytes: config.nodeResponseMaxBytes,
  });
  /** The indexer's parts (the benchmark times them one by one). */
  const indexerDeps = {
    db,
    beacon,
    execution: createExecutionApi({
      url: config.beaconData.executionUrl,
      timeoutMs: config.beaconData.executionTimeoutMs,
      maxBytes: config.nodeResponseMaxBytes,
    }),
    repo: createIndexerRepo(db, { offlineEpochs: config.webhooks.offlineEpochs }),
    depositContract: resolveNetwork(config.eth).depositContract,
    maxEpochsPerStep: config.beaconData.maxEpochsPerStep,
    startEpoch: config.beaconData.startEpoch,
    backfillEpochs: config.beaconData.backfillEpochs,
    backfillEpochsPerStep: config.beaconData.backfillEpochsPerStep,
    chain: { db, policy: config.chainResetPolicy, logger: logger.child({ component: "beacon-indexer" }) },
    logger: logger.child({ component: "beacon-indexer" }),
  };
  const indexer = createIndexer(indexerDeps);
  const registerLimit = createKeyRateLimit({
    redis,
    keys,
    name: "register",
    perMinute: config.beaconData.registerPerMinute,
  });
  const service = createBeaconDataService({
    repo: createBeaconDataRepo(db, reads),
    network: config.eth.network,
    provider: config.beaconData.provider,
    registrations: createRegistrationsQueue({ connection: redis, prefix: queuePrefix }),
    beacon,
    limit: (organisationId) => registerLimit(organisationId),
    maxRegistered: config.beaconData.registeredPerOrganisation,
    assertServing: createChainServing({ db, area: "beacon-data", identify: () => beacon.chainIdentity() }),
    rates: createRatesRepo(reads),
    nodes: { beacon, execution: indexerDeps.execution },
  });
  return {
    routes: [beaconDataArea({ service })],
    indexer,
    indexerDeps,
    jobs: (q: QueueDeps) =>
      beaconDataJobs({
        ...q,
        indexer,
        rollUpRegistrations: indexer.rollUpRegistrations,
        intervalMs: config.beaconData.intervalMs,
      }),
  };
}
