import type { Db } from "@stake/db/client";
import { organisations } from "@stake/db/schema/accounts";
import { suiDelegators, suiEpochs, suiPoolRates, suiPools, suiStakes } from "@stake/db/schema/sui";
import { and, asc, between, eq, inArray, sql } from "drizzle-orm";
import type { SuiOwnedStake, SuiPoolInfo, SuiRate, SuiUnstakeEvent } from "./client.ts";
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

    async upsertPool(pool: SuiPoolInfo): Promise<void> {
      await db
        .insert(suiPools)
        .values(pool)
        .onConflictDoUpdate({
          target: suiPools.poolId,
          set: { validatorAddress: pool.validatorAddress, exchangeRatesId: pool.exchangeRatesId },
        });
    },

    /** Rates and epoch starts of one batch, and the pool's cursor, in one transaction. */
    async saveRates(args: {
      poolId: string;
      rates: Map<number, SuiRate>;
      starts: Map<number, bigint>;
      through: number;
    }): Promise<void> {
      await db.transaction(async (tx) => {
        const rates = [...args.rates].map(([epoch, r]) => ({
          poolId: args.poolId,
          epoch,
          suiAmount: r.suiAmount.toString(),
          poolTokenAmount: r.poolTokenAmount.toString(),
        }));
        if (rates.length) await tx.insert(suiPoolRates).values(rates).onConflictDoNothing();
        const starts = [...args.starts].map(([epoch, startMs]) => ({ epoch, startMs }));
        if (starts.length) await tx.insert(suiEpochs).values(starts).onConflictDoNothing();
        await tx
          .update(suiPools)
          .set({ indexedThroughEpoch: args.through })
          .where(eq(suiPools.poolId, args.poolId));
      });
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

    async delegator(address: string) {
      const [row] = await db.select().from(suiDelegators).where(eq(suiDelegators.address, address));
      return row;
    },

    /** Delegators to keep in sync: those already followed and every `sui` address of an org's scope. */
    async followedDelegators(): Promise<{ address: string; unstakeCursor: string | null }[]> {
      const scoped = await db.execute<{ address: string }>(
        sql`select distinct lower(jsonb_array_elements_text(${organisations.scope} -> 'sui' -> 'delegator_addresses')) as address
            from ${organisations} where ${organisations.status} = 'approved'`,
      );
      const addresses = scoped
        .map((r) => r.address)
        .filter((a) => /^0x[0-9a-f]{64}$/.test(a))
        .map((address) => ({ address }));
      if (addresses.length) await db.insert(suiDelegators).values(addresses).onConflictDoNothing();
      return db
        .select({ address: suiDelegators.address, unstakeCursor: suiDelegators.unstakeCursor })
        .from(suiDelegators)
        .orderBy(asc(suiDelegators.address));
    },

    /**
     * A delegator's stakes as just read: the owned set replaces the previous one, new unstake events are
     * added, the event cursor moves, all in one transaction.
     */
    async saveStakes(args: {
      delegator: string;
      owned: SuiOwnedStake[];
      unstaked: SuiUnstakeEvent[];
      cursor: string | null;
    }): Promise<void> {
      const { delegator } = args;
      await db.transaction(async (tx) => {
        await tx
          .delete(suiStakes)
          .where(and(eq(suiStakes.delegator, delegator), eq(suiStakes.source, "owned")));
        const rows = [
          ...args.owned.map((s) => ({
            delegator,
            stakeKey: s.objectId,
            source: "owned" as const,
            poolId: s.poolId,
            principal: s.principal.toString(),
            activationEpoch: s.activationEpoch,
          })),
          ...args.unstaked.map((e) => ({
            delegator,
            stakeKey: e.key,
            source: "unstaked" as const,
            poolId: e.poolId,
            principal: e.principal.toString(),
            activationEpoch: e.activationEpoch,
            unstakeEpoch: e.unstakingEpoch,
            rewardAmount: e.reward.toString(),
          })),
        ];
        if (rows.length) await tx.insert(suiStakes).values(rows).onConflictDoNothing();
        await tx
          .insert(suiDelegators)
          .values({ address: delegator, unstakeCursor: args.cursor, syncedAt: new Date() })
          .onConflictDoUpdate({
            target: suiDelegators.address,
            set: { unstakeCursor: args.cursor, syncedAt: new Date() },
          });
      });
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
