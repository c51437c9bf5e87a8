import type { Db } from "@stake/db/client";
import { polygonSnapshots } from "@stake/db/schema/polygon";
import { and, between, desc, eq } from "drizzle-orm";
import type { ShareState } from "./client.ts";

const toState = (r: typeof polygonSnapshots.$inferSelect): ShareState => ({
  block: r.block,
  timestamp: r.timestamp,
  rewardPerShare: BigInt(r.rewardPerShare),
  exchangeRate: BigInt(r.exchangeRate),
});

/** The worker's ValidatorShare snapshots and its place in the checkpoint logs. */
export function createPolygonRepo(db: Db) {
  return {
    async latest(validatorShare: string): Promise<ShareState | undefined> {
      const [row] = await db
        .select()
        .from(polygonSnapshots)
        .where(eq(polygonSnapshots.validatorShare, validatorShare))
        .orderBy(desc(polygonSnapshots.block))
        .limit(1);
      return row && toState(row);
    },

    /** The newest snapshot taken at or before `to` and not before `from` (Unix seconds). */
    async newestBetween(validatorShare: string, from: bigint, to: bigint): Promise<ShareState | undefined> {
      const [row] = await db
        .select()
        .from(polygonSnapshots)
        .where(
          and(
            eq(polygonSnapshots.validatorShare, validatorShare),
            between(polygonSnapshots.timestamp, from, to),
          ),
        )
        .orderBy(desc(polygonSnapshots.timestamp), desc(polygonSnapshots.block))
        .limit(1);
      return row && toState(row);
    },
  };
}

export type PolygonRepo = ReturnType<typeof createPolygonRepo>;
