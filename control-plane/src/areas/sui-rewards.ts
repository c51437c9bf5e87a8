import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { createSuiNode } from "../features/sui-rewards/client.ts";
import { createSuiFollows } from "../features/sui-rewards/follows.ts";
import { createSuiIndexer } from "../features/sui-rewards/indexer.ts";
import { createSuiIndexerRepo } from "../features/sui-rewards/indexer-repo.ts";
import { createDelegatorQueue, createDelegatorSync, suiRewardsJobs } from "../features/sui-rewards/jobs.ts";
import { createSuiRepo } from "../features/sui-rewards/repo.ts";
import { suiRewardsArea } from "../features/sui-rewards/routes.ts";
import { createSuiRewardsService } from "../features/sui-rewards/service.ts";
import { createChainServing } from "../platform/chain-identity/guard.ts";

export function composeArea({ config, db, redis, keys, logger, queuePrefix }: Core) {
  const repo = createSuiRepo(db);
  const follows = createSuiFollows({
    redis,
    keys,
    perOrganisation: config.sui.followsPerOrganisation,
    expiryMs: config.sui.followExpiryMs,
  });
  const node = createSuiNode({ ...config.sui, maxBytes: config.nodeResponseMaxBytes }, config.network);
  const indexer = createSuiIndexer({
    node,
    db,
    repo: createSuiIndexerRepo(db),
    ...config.sui,
    recentlyQueried: follows.recent,
    chain: { db, policy: config.chainResetPolicy, logger: logger.child({ component: "sui-indexer" }) },
    logger: logger.child({ component: "sui-indexer" }),
  });
  const service = createSuiRewardsService({
    repo,
    syncDelegator: createDelegatorSync({
      queue: createDelegatorQueue({ connection: redis, prefix: queuePrefix }),
      waitMs: 10_000,
    }),
    follows,
    validators: config.sui.validators,
    indexFromEpoch: config.sui.fromEpoch,
    indexIntervalMs: config.sui.indexIntervalMs,
    assertServing: createChainServing({
      db,
      area: "sui-rewards",
      identify: async () => ({ chain_identifier: await node.chainIdentifier() }),
    }),
  });
  return {
    routes: [suiRewardsArea({ service })],
    indexer,
    jobs: (q: QueueDeps) =>
      suiRewardsJobs({
        ...q,
        indexer,
        cursorOf: async (address) => (await repo.delegator(address))?.unstakeCursor ?? null,
        intervalMs: config.sui.indexIntervalMs,
      }),
  };
}
