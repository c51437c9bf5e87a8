import type { Db } from "@stake/db/client";
import type { Redis } from "ioredis";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import { startRepeatingJob } from "../../repeating-job.ts";
import { createPolygonL1 } from "./client.ts";
import { createPolygonRepo } from "./repo.ts";
import { createPolygonSnapshotter } from "./snapshots.ts";
import { createValidatorShareResolver } from "./validator.ts";

export const POLYGON_SNAPSHOT_QUEUE = "polygon-rewards-snapshots";

/**
 * The Polygon snapshot pass (snapshots.ts) every POLYGON_POLL_INTERVAL_MS: new checkpoints' snapshots, the
 * interval snapshot when due, backfill. A restarted worker resumes from the log cursor in Postgres.
 */
export function startPolygonSnapshotWorker(deps: {
  db: Db;
  connection: Redis;
  config: Readonly<Config>;
  logger: Logger;
}) {
  const { config } = deps;
  const logger = deps.logger.child({ component: "polygon-snapshots" });
  const l1 = createPolygonL1(config.polygon);
  const snapshotter = createPolygonSnapshotter({
    l1,
    repo: createPolygonRepo(deps.db),
    resolver: createValidatorShareResolver({ l1, ...config.polygon }),
    rootChain: config.polygon.rootChain,
    snapshotIntervalS: config.polygon.snapshotIntervalS,
    logger,
  });
  return startRepeatingJob({
    queue: POLYGON_SNAPSHOT_QUEUE,
    everyMs: config.polygon.pollIntervalMs,
    connection: deps.connection,
    redisPrefix: config.redisPrefix,
    logger,
    run: () => snapshotter.runOnce(),
  });
}
