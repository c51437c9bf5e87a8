import { formatCoins } from "@stake/db/coin";
import { parties } from "@stake/db/schema/index";
import { markAllPartiesDirty, rebuildPartyRedis, runSettlementPass } from "@stake/db/settlement";
import { asc, eq } from "drizzle-orm";
import { type Command, UsageError } from "./context.ts";

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer`);
  return n;
}

/** Settlement and recovery of the gateway ledger (Postgres is the ledger of record, Redis the hot copy). */
export const ledgerCommands: Record<string, Command> = {
  "ledger rebuild-redis": {
    usage: "ledger rebuild-redis [--party <partyId>]",
    summary: "rebuild Redis balances, applied credits and reservations from Postgres (gateways stopped)",
    valueFlags: ["party"],
    async run(ctx, args) {
      const party = args.flags.party;
      if (party === true) throw new UsageError("--party needs a value");
      const ids = party
        ? (await ctx.db.select({ id: parties.id }).from(parties).where(eq(parties.id, party))).map(
            (p) => p.id,
          )
        : (await ctx.db.select({ id: parties.id }).from(parties).orderBy(asc(parties.id))).map((p) => p.id);
      if (party && !ids.length) throw new UsageError(`no party ${party}`);
      const ttlSeconds = positiveInt(ctx.env, "IDEMPOTENCY_TTL_SECONDS", 172_800);
      const rebuilt = [];
      for (const id of ids) rebuilt.push(await rebuildPartyRedis(ctx, id, { ttlSeconds }));
      const data = rebuilt.map((r) => ({
        partyId: r.partyId,
        balance: formatCoins(r.balance),
        reserved: formatCoins(r.reserved),
        reservations: r.records,
      }));
      const text = data.length
        ? data
            .map(
              (r) =>
                `${r.partyId} balance ${r.balance} reserved ${r.reserved} (${r.reservations} reservations)`,
            )
            .join("\n")
        : "no parties";
      return { data, text };
    },
  },
  "ledger settle": {
    usage: "ledger settle --once",
    summary: "run one settlement pass over every party (the worker runs it continuously)",
    async run(ctx, args) {
      if (args.flags.once !== true)
        throw new UsageError("--once is required (the worker settles continuously)");
      await markAllPartiesDirty(ctx);
      const reapAfterMs = positiveInt(ctx.env, "RESERVATION_REAP_AFTER_MS", 60_000);
      const logger = {
        warn: (obj: object, msg: string) => console.error(`warning: ${msg}`, obj),
        error: (obj: object, msg: string) => console.error(`error: ${msg}`, obj),
      };
      const result = await runSettlementPass({ ...ctx, logger }, { reapAfterMs });
      return {
        data: result,
        text: `${result.parties} parties: ${result.drained} events drained, ${result.settled} reservations settled, ${result.reaped} reaped${result.errors ? `, ${result.errors} failed (see above)` : ""}`,
      };
    },
  },
};
