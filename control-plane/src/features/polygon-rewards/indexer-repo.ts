import type { Db } from "@stake/db/client";
import { polygonLogCursors, polygonSnapshots } from "@stake/db/schema/polygon";
import { eq } from "drizzle-orm";
import type { ShareState } from "./client.ts";
import { createPolygonRepo } from "./repo.ts";

type Source = "checkpoint" | "interval" | "backfill";

/** The snapshot indexer's writes and log cursor, with the reads it resumes from; only the worker's jobs call these. */
export function createPolygonIndexerRepo(db: Db) {
  const reads = createPolygonRepo(db);
  return {
    latest: reads.latest,
    newestBetween: reads.newestBetween,

    async saveSnapshot(validatorShare: string, s: ShareState, source: Source): Promise<void> {
      const row = {
        timestamp: s.timestamp,
        rewardPerShare: s.rewardPerShare.toString(),
        exchangeRate: s.exchangeRate.toString(),
        source,
      };
      await db
        .insert(polygonSnapshots)
        .values({ validatorShare, block: s.block, ...row })
        .onConflictDoUpdate({ target: [polygonSnapshots.validatorShare, polygonSnapshots.block], set: row });
    },

    async logCursor(rootChain: string): Promise<bigint | undefined> {
      const [row] = await db
        .select()
        .from(polygonLogCursors)
        .where(eq(polygonLogCursors.rootChain, rootChain));
      return row?.lastBlock;
    },

    async setLogCursor(rootChain: string, lastBlock: bigint): Promise<void> {
      await db
        .insert(polygonLogCursors)
        .values({ rootChain, lastBlock })
        .onConflictDoUpdate({ target: polygonLogCursors.rootChain, set: { lastBlock } });
    },
  };
}

export type PolygonIndexerRepo = ReturnType<typeof createPolygonIndexerRepo>;
