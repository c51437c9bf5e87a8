import { formatCoins } from "@stake/db/coin";
import type { AccountContext, GatewayAccountDeps } from "./context.ts";
import type { PageQuery, UsageQuery } from "./schemas.ts";
import { presentUsage } from "./usage.ts";

/** What the party did: its reservations, funding credits and daily usage, from Postgres. */
export function createGatewayHistoryService(deps: GatewayAccountDeps, ctx: AccountContext) {
  const { repo } = deps;
  return {
    /**
     * Newest first, from Postgres, the record of every reservation however old. The worker drains the
     * party's event stream first (asked here, waited for a moment), so the page includes requests made a
     * moment ago rather than lagging the settlement interval; the API never writes settlement itself.
     */
    async reservations(userId: string, q: PageQuery) {
      const party = await ctx.partyOf(userId);
      await deps.drainParty(party.id);
      const { rows, total } = await repo.listReservations(party.id, q.page, q.pageSize);
      const reservations = rows.map((r) => ({
        id: r.id,
        idempotencyKey: r.idempotencyKey,
        partyId: party.id,
        providerKey: r.providerKey,
        costInUSD: Number(r.costInUsd),
        cost: formatCoins(BigInt(r.cost)),
        status: r.status,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
        keyId: r.keyId,
        path: r.path,
        httpStatus: r.httpStatus,
        upstreamMs: r.upstreamMs,
      }));
      return { reservations, page: q.page, pageSize: q.pageSize, total };
    },

    /** The party's funding credits, newest first: what the operator credited, with its reference. */
    async funding(userId: string, q: PageQuery) {
      const party = await ctx.partyOf(userId);
      const { rows, total } = await repo.listCredits(party.id, q.page, q.pageSize);
      const credits = rows.map((e) => ({
        id: e.id,
        amount: formatCoins(BigInt(e.amount)),
        reference: e.externalRef,
        createdAt: e.createdAt.toISOString(),
        appliedAt: e.appliedAt?.toISOString() ?? null,
      }));
      return { credits, page: q.page, pageSize: q.pageSize, total };
    },

    /**
     * The party's daily usage roll-up (settlement writes it as reservations close). The party's stream is
     * drained first, as for the reservations, so requests failed a moment ago are counted; paid ones
     * appear once the worker has charged them (each pass, SETTLEMENT_INTERVAL_MS).
     */
    async usage(userId: string, q: UsageQuery) {
      const party = await ctx.partyOf(userId);
      await deps.drainParty(party.id);
      return presentUsage(q, await repo.listUsage(party.id, q.from, q.to));
    },
  };
}
