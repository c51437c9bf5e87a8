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

export function composeArea({ config, db, logger }: Core) {
  const l1 = createPolygonL1({ ...config.polygon, maxBytes: config.nodeResponseMaxBytes });
  const resolver = createValidatorShareResolver({ l1, ...config.polygon });
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
  const service = createPolygonRewardsService({
    l1,
    repo: createPolygonRepo(db),
    resolver,
    assertServing: createChainServing({
      db,
      area: "polygon-rewards",
      identify: (recorded) => l1Identity(l1, recorded, config.polygon.snapshotDepth),
    }),
  });
  return {
    routes: [polygonRewardsArea({ service })],
    indexer,
    jobs: (q: QueueDeps) => polygonRewardsJobs({ ...q, indexer, intervalMs: config.polygon.pollIntervalMs }),
  };
}
