import {
  checkParty,
  type LedgerDifference,
  markAllPartiesDirty,
  partiesToCheck,
  rebuildPartyRedis,
  runSettlementPass,
} from "@stake/control-plane/operator";
import { formatCoins } from "@stake/db/coin";
import { type Command, type OperatorContext, type ParsedArgs, UsageError } from "./context.ts";

/** `--party P` (which must exist), else every party. */
async function selectedParties(ctx: OperatorContext, args: ParsedArgs): Promise<string[]> {
  const party = args.flags.party;
  if (typeof party === "boolean") throw new UsageError("--party needs a value");
  const ids = await partiesToCheck(ctx, party);
  if (!ids) throw new UsageError(`no party ${party}`);
  return ids;
}

/** Settlement and recovery of the gateway ledger (Postgres is the ledger of record, Redis the hot copy). */
export const ledgerCommands: Record<string, Command> = {
  "ledger rebuild-redis": {
    usage: "ledger rebuild-redis [--party <partyId>]",
    summary: "rebuild Redis balances, applied credits and reservations from Postgres (gateways stopped)",
    valueFlags: ["party"],
    async run(ctx, args) {
      const ids = await selectedParties(ctx, args);
      const ttlSeconds = ctx.config.idempotencyTtlSeconds;
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
  "ledger check": {
    usage: "ledger check [--party <partyId>]",
    summary:
      "compare Redis with Postgres (balances, reserved, reservations, credits, debits); exit 1 on any difference",
    valueFlags: ["party"],
    async run(ctx, args) {
      const ids = await selectedParties(ctx, args);
      const differences: LedgerDifference[] = [];
      for (const id of ids) differences.push(...(await checkParty(ctx, id)));
      const text = differences.length
        ? differences.map((d) => `${d.partyId} ${d.item}: ${d.detail}`).join("\n")
        : `${ids.length} parties: Redis and Postgres agree`;
      return { data: { parties: ids.length, differences }, text, exitCode: differences.length ? 1 : 0 };
    },
  },
  "ledger settle": {
    usage: "ledger settle --once",
    summary: "run one settlement pass over every party (the worker runs it continuously)",
    booleanFlags: ["once"],
    async run(ctx, args) {
      if (args.flags.once !== true)
        throw new UsageError("--once is required (the worker settles continuously)");
      await markAllPartiesDirty(ctx);
      const reapAfterMs = ctx.config.reapAfterMs;
      const logger = {
        warn: (obj: object, msg: string) => console.error(`warning: ${msg}`, obj),
        error: (obj: object, msg: string) => console.error(`error: ${msg}`, obj),
      };
      const ttlSeconds = ctx.config.idempotencyTtlSeconds;
      const result = await runSettlementPass({ ...ctx, logger }, { reapAfterMs, ttlSeconds });
      return {
        data: result,
        text: `${result.parties} parties: ${result.drained} events drained, ${result.settled} reservations settled, ${result.reaped} reaped${result.errors ? `, ${result.errors} failed (see above)` : ""}`,
      };
    },
  },
};
