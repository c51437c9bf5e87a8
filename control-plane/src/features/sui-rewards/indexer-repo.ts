import type { Db, DbOrTx } from "@stake/db/client";
import { organisations } from "@stake/db/schema/accounts";
import { suiDelegators, suiEpochs, suiPoolRates, suiPools, suiStakes } from "@stake/db/schema/sui";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { SuiOwnedStake, SuiPoolInfo, SuiRate, SuiUnstakeEvent } from "./client.ts";
import { createSuiRepo } from "./repo.ts";

/**
 * The Sui indexer's writes (and the pool list it resumes from); only the worker's jobs call these. The
 * multi-row writes take the caller's transaction: the indexer opens it (`db.transaction`).
 */
export function createSuiIndexerRepo(db: Db) {
  return {
    pools: createSuiRepo(db).pools,

    async upsertPool(pool: SuiPoolInfo): Promise<void> {
      await db
        .insert(suiPools)
        .values(pool)
        .onConflictDoUpdate({
          target: suiPools.poolId,
          set: { validatorAddress: pool.validatorAddress, exchangeRatesId: pool.exchangeRatesId },
        });
    },

    /** Rates and epoch starts of one batch, and the pool's cursor, in the caller's transaction. */
    async saveRates(
      tx: DbOrTx,
      args: {
        poolId: string;
        rates: Map<number, SuiRate>;
        starts: Map<number, bigint>;
        through: number;
      },
    ): Promise<void> {
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
    },

    /**
     * Delegators to keep in sync: every `sui` address of an approved organisation's scope, and of those
     * already stored the ones in `recent` (queried within the follow expiry, follows.ts).
     */
    async followedDelegators(
      recent: readonly string[],
    ): Promise<{ address: string; unstakeCursor: string | null }[]> {
      const scoped = await db.execute<{ address: string }>(
        sql`select distinct lower(jsonb_array_elements_text(${organisations.scope} -> 'sui' -> 'delegator_addresses')) as address
            from ${organisations} where ${organisations.status} = 'approved'`,
      );
      const addresses = scoped
        .map((r) => r.address)
        .filter((a) => /^0x[0-9a-f]{64}$/.test(a))
        .map((address) => ({ address }));
      if (addresses.length) await db.insert(suiDelegators).values(addresses).onConflictDoNothing();
      const wanted = [...new Set([...addresses.map((a) => a.address), ...recent])];
      if (!wanted.length) return [];
      return db
        .select({ address: suiDelegators.address, unstakeCursor: suiDelegators.unstakeCursor })
        .from(suiDelegators)
        .where(inArray(suiDelegators.address, wanted))
        .orderBy(asc(suiDelegators.address));
    },

    /**
     * A delegator's stakes as just read: the owned set replaces the previous one, new unstake events are
     * added, the event cursor moves, all in the caller's transaction.
     */
    async saveStakes(
      tx: DbOrTx,
      args: {
        delegator: string;
        owned: SuiOwnedStake[];
        unstaked: SuiUnstakeEvent[];
        cursor: string | null;
      },
    ): Promise<void> {
      const { delegator } = args;
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
    },
  };
}

export type SuiIndexerRepo = ReturnType<typeof createSuiIndexerRepo>;
