import type { Db } from "@stake/db/client";
import { solanaEpochRewards, solanaEpochs } from "@stake/db/schema/solana";
import { and, between, eq, inArray, sql } from "drizzle-orm";

export interface EpochTotals {
  epoch: number;
  accounts: number;
  inflation: bigint;
  mev: bigint;
  /** Sum of post-inflation balances of the accounts that earned inflation. */
  postBalance: bigint;
}

/** Postgres cache of immutable per-epoch data: rewards per (stake account, epoch) and epoch start times. */
export function createSolanaRewardsRepo(db: Db) {
  return {
    async totals(accounts: string[], from: number, to: number): Promise<Map<number, EpochTotals>> {
      const rows = await db
        .select({
          epoch: solanaEpochRewards.epoch,
          accounts: sql<number>`count(*)::int`,
          inflation: sql<string>`coalesce(sum(${solanaEpochRewards.inflationLamports}), 0)::text`,
          mev: sql<string>`coalesce(sum(${solanaEpochRewards.mevLamports}), 0)::text`,
          postBalance: sql<string>`coalesce(sum(${solanaEpochRewards.postBalanceLamports}), 0)::text`,
        })
        .from(solanaEpochRewards)
        .where(
          and(
            inArray(solanaEpochRewards.stakeAccount, accounts),
            between(solanaEpochRewards.epoch, from, to),
          ),
        )
        .groupBy(solanaEpochRewards.epoch);
      return new Map(
        rows.map((r) => [
          r.epoch,
          {
            epoch: r.epoch,
            accounts: r.accounts,
            inflation: BigInt(r.inflation),
            mev: BigInt(r.mev),
            postBalance: BigInt(r.postBalance),
          },
        ]),
      );
    },

    async cachedAccounts(accounts: string[], epoch: number): Promise<Set<string>> {
      const rows = await db
        .select({ a: solanaEpochRewards.stakeAccount })
        .from(solanaEpochRewards)
        .where(and(inArray(solanaEpochRewards.stakeAccount, accounts), eq(solanaEpochRewards.epoch, epoch)));
      return new Set(rows.map((r) => r.a));
    },

    async rowsFor(accounts: string[], from: number, to: number) {
      return db
        .select()
        .from(solanaEpochRewards)
        .where(
          and(
            inArray(solanaEpochRewards.stakeAccount, accounts),
            between(solanaEpochRewards.epoch, from, to),
          ),
        );
    },

    async insertRewards(rows: (typeof solanaEpochRewards.$inferInsert)[]): Promise<void> {
      for (let i = 0; i < rows.length; i += 1000) {
        await db
          .insert(solanaEpochRewards)
          .values(rows.slice(i, i + 1000))
          .onConflictDoNothing();
      }
    },

    async epochStarts(from: number, to: number): Promise<Map<number, bigint>> {
      const rows = await db
        .select()
        .from(solanaEpochs)
        .where(between(solanaEpochs.epoch, from, to));
      return new Map(rows.map((r) => [r.epoch, r.startTime]));
    },

    async insertEpochStarts(rows: { epoch: number; firstSlot: bigint; startTime: bigint }[]): Promise<void> {
      if (rows.length) await db.insert(solanaEpochs).values(rows).onConflictDoNothing();
    },
  };
}

export type SolanaRewardsRepo = ReturnType<typeof createSolanaRewardsRepo>;
