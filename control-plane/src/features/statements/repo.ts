import type { Db, DbOrTx } from "@stake/db/client";
import { organisations } from "@stake/db/schema/accounts";
import { statementNotices, tokenPrices } from "@stake/db/schema/statements";
import { and, eq, gte, lt, sql } from "drizzle-orm";

/** The statements' own tables: the operator's price series and the once-only `statement.ready` guard. */
export function createStatementsRepo(db: Db, reads: Db = db) {
  return {
    /** Price per whole token of each day in [start, end) that has one. */
    async prices(token: string, currency: string, start: string, end: string): Promise<Map<string, string>> {
      const rows = await reads
        .select({ day: tokenPrices.day, price: sql<string>`trim_scale(${tokenPrices.price})::text` })
        .from(tokenPrices)
        .where(
          and(
            eq(tokenPrices.token, token),
            eq(tokenPrices.currency, currency),
            gte(tokenPrices.day, start),
            lt(tokenPrices.day, end),
          ),
        );
      return new Map(rows.map((r) => [r.day, r.price]));
    },

    /** Sets (or replaces) the prices of the given days. */
    async setPrices(
      token: string,
      currency: string,
      days: { day: string; price: string }[],
      tx: DbOrTx = db,
    ) {
      if (!days.length) return;
      await tx
        .insert(tokenPrices)
        .values(days.map((d) => ({ token, currency, day: d.day, price: d.price })))
        .onConflictDoUpdate({
          target: [tokenPrices.token, tokenPrices.currency, tokenPrices.day],
          set: { price: sql`excluded.price`, createdAt: sql`now()` },
        });
    },

    approvedOrganisations() {
      return db
        .select({ id: organisations.id, scope: organisations.scope })
        .from(organisations)
        .where(eq(organisations.status, "approved"));
    },

    /** The organisations already told of `chain`'s `month`. */
    async noticedOrganisations(chain: string, month: string): Promise<Set<string>> {
      const rows = await db
        .select({ id: statementNotices.organisationId })
        .from(statementNotices)
        .where(and(eq(statementNotices.chain, chain), eq(statementNotices.month, month)));
      return new Set(rows.map((r) => r.id));
    },

    /** True the first time only: the caller emits `statement.ready` in the same transaction. */
    async claimNotice(tx: DbOrTx, organisationId: string, chain: string, month: string) {
      const got = await tx
        .insert(statementNotices)
        .values({ organisationId, chain, month })
        .onConflictDoNothing()
        .returning({ month: statementNotices.month });
      return got.length === 1;
    },
  };
}

export type StatementsRepo = ReturnType<typeof createStatementsRepo>;
