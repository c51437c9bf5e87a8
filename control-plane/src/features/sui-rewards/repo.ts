import type { Db } from "@stake/db/client";
import { suiDelegators, suiEpochs, suiPoolRates, suiPools, suiStakes } from "@stake/db/schema/sui";
import { and, asc, between, eq, inArray } from "drizzle-orm";
import type { SuiPoolInfo } from "./client.ts";
import type { Rate, StakePosition } from "./rewards.ts";

export interface IndexedPool extends SuiPoolInfo {
  indexedThroughEpoch: number | null;
}

/** What the worker indexed from the Sui node: pools, their rates, epoch starts, delegators' stakes. */
export function createSuiRepo(db: Db) {
  return {
    async pools(): Promise<IndexedPool[]> {
      return db.select().from(suiPools).orderBy(asc(suiPools.poolId));
    },

    async rates(poolIds: string[]): Promise<Map<string, { epoch: number; rate: Rate }[]>> {
      const out = new Map<string, { epoch: number; rate: Rate }[]>(poolIds.map((p) => [p, []]));
      if (!poolIds.length) return out;
      const rows = await db
        .select({
          poolId: suiPoolRates.poolId,
          epoch: suiPoolRates.epoch,
          sui: suiPoolRates.suiAmount,
          tok: suiPoolRates.poolTokenAmount,
        })
        .from(suiPoolRates)
        .where(inArray(suiPoolRates.poolId, poolIds));
      for (const r of rows) {
        out.get(r.poolId)?.push({
          epoch: r.epoch,
          rate: { suiAmount: BigInt(r.sui), poolTokenAmount: BigInt(r.tok) },
        });
      }
      return out;
    },

    /** Epochs that started within [fromMs, toMs), in order. */
    async epochsStartingBetween(fromMs: bigint, toMs: bigint): Promise<{ epoch: number; startMs: bigint }[]> {
      return db
        .select()
        .from(suiEpochs)
        .where(between(suiEpochs.startMs, fromMs, toMs - 1n))
        .orderBy(asc(suiEpochs.epoch));
    },

    /** When `epoch` started (Unix ms), or null when it is not indexed. */
    async epochStart(epoch: number): Promise<bigint | null> {
      const [row] = await db.select().from(suiEpochs).where(eq(suiEpochs.epoch, epoch));
      return row?.startMs ?? null;
    },

    async delegator(address: string) {
      const [row] = await db.select().from(suiDelegators).where(eq(suiDelegators.address, address));
      return row;
    },

    async stakes(
      delegator: string,
      poolIds: string[],
    ): Promise<(StakePosition & { rewardAmount: bigint | null })[]> {
      if (!poolIds.length) return [];
      const rows = await db
        .select()
        .from(suiStakes)
        .where(and(eq(suiStakes.delegator, delegator), inArray(suiStakes.poolId, poolIds)));
      return rows.map((r) => ({
        poolId: r.poolId,
        principal: BigInt(r.principal),
        activationEpoch: r.activationEpoch,
        unstakeEpoch: r.unstakeEpoch,
        rewardAmount: r.rewardAmount === null ? null : BigInt(r.rewardAmount),
      }));
    },
  };
}

export type SuiRepo = ReturnType<typeof createSuiRepo>;
