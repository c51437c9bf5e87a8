import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { createPolygonL1, l1Identity } from "../features/polygon-rewards/client.ts";
import { createPolygonSnapshotter } from "../features/polygon-rewards/indexer.ts";
import { createPolygonIndexerRepo } from "../features/polygon-rewards/indexer-repo.ts";
import { polygonRewardsJobs } from "../features/polygon-rewards/jobs.ts";
import { createPolygonRepo } from "../features/polygon-rewards/repo.ts";
import { polygonRewardsArea } from "../features/polygon-rewards/routes.ts";
import { createPolygonRewardsService } from "../features/polygon-rewards/service.ts";
import { createValidatorShareResolver } from "../features/polygon-rewards/validator.ts";
import { createChainServing } from "../platform/chain-identity/guard.ts";

/** The L1 node, the operator's ValidatorShare, the snapshots and the chain check (the statements read them too). */
export function polygonReads({ config, db }: Core) {
  const l1 = createPolygonL1({ ...config.polygon, maxBytes: config.nodeResponseMaxBytes });
  return {
    l1,
    resolver: createValidatorShareResolver({ l1, ...config.polygon }),
    repo: createPolygonRepo(db),
    assertServing: createChainServing({
      db,
      area: "polygon-rewards",
      identify: (recorded) => l1Identity(l1, recorded, config.polygon.snapshotDepth),
    }),
  };
}

export function composeArea(core: Core) {
  const { config, db, logger } = core;
  const reads = polygonReads(core);
  const { l1, resolver } = reads;
  const indexer = createPolygonSnapshotter({
    l1,
    repo: createPolygonIndexerRepo(db),
    resolver,
    rootChain: config.polygon.rootChain,
    snapshotIntervalS: config.polygon.snapshotIntervalS,
    snapshotDepth: config.polygon.snapshotDepth,
    chain: { db, policy: config.chainResetPolicy, logger: logger.child({ component: "polygon-snapshots" }) },
    logger: logger.child({ component: "polygon-snapshots" }),
  });
  const service = createPolygonRewardsService(reads);
  return {
    routes: [polygonRewardsArea({ service })],
    indexer,
    jobs: (q: QueueDeps) => polygonRewardsJobs({ ...q, indexer, intervalMs: config.polygon.pollIntervalMs }),
  };
}
