import type { Db } from "@stake/db/client";
import type { Redis } from "ioredis";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import { startRepeatingJob } from "../../repeating-job.ts";
import { createSuiNode } from "./client.ts";
import { createSuiIndexer } from "./indexer.ts";
import { createSuiRepo } from "./repo.ts";

export const SUI_INDEX_QUEUE = "sui-rewards-index";

/**
 * The Sui indexer every SUI_INDEX_INTERVAL_MS: one pass (new epochs' rates of the operator's pools, then
 * every followed delegator), resuming from the cursors in Postgres after a failed one.
 */
export function startSuiIndexWorker(deps: {
  db: Db;
  connection: Redis;
  config: Readonly<Config>;
  logger: Logger;
}) {
  const { config } = deps;
  const logger = deps.logger.child({ component: "sui-indexer" });
  const repo = createSuiRepo(deps.db);
  const indexer = createSuiIndexer({
    node: createSuiNode(config.sui, config.network),
    repo,
    ...config.sui,
    logger,
  });
  return startRepeatingJob({
    queue: SUI_INDEX_QUEUE,
    everyMs: config.sui.indexIntervalMs,
    connection: deps.connection,
    redisPrefix: config.redisPrefix,
    logger,
    run: () => indexer.runOnce(),
  });
}
