import { formatCoins } from "@stake/db/coin";
import { type Command, flag, UsageError } from "./context.ts";

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** What the operator reads of gateway accounts: the coin rate, users, parties and keys (ids the other commands take). */
export const gatewayReadCommands: Record<string, Command> = {
  "rate show": {
    usage: "rate show",
    summary: "the ledger coin price in force (USD per coin)",
    async run(ctx) {
      const rate = await ctx.gateway.currentCoinRate();
      if (!rate) return { data: null, text: "no rate set (rate set <usd-per-coin>)" };
      const data = { id: rate.id, usdPerCoin: rate.usdPerCoin, setAt: rate.createdAt.toISOString() };
      return { data, text: `1 coin = ${rate.usdPerCoin} USD (set ${data.setAt})` };
    },
  },
  "users list": {
    usage: "users list",
    summary: "list gateway users with their party",
    async run(ctx) {
      const data = (await ctx.gateway.listUsers()).map((u) => ({ ...u, createdAt: iso(u.createdAt) }));
      const text = data.length
        ? data.map((u) => `${u.id}  ${(u.partyId ?? "(no party)").padEnd(30)} ${u.email}`).join("\n")
        : "no gateway users";
      return { data, text };
    },
  },
  "parties list": {
    usage: "parties list",
    summary: "list ledger parties with their user and balance (coins)",
    async run(ctx) {
      const data = (await ctx.gateway.listParties()).map((p) => ({
        ...p,
        balance: formatCoins(p.balance),
        reserved: formatCoins(p.reserved),
      }));
      const text = data.length
        ? data.map((p) => `${p.partyId}  balance ${p.balance} reserved ${p.reserved}  ${p.email}`).join("\n")
        : "no parties";
      return { data, text };
    },
  },
  "gateway-keys list": {
    usage: "gateway-keys list [--user <userId|email>]",
    summary:
      "list gateway API keys (id, start, label, state, last use, spend today and caps); the id is what deactivate takes",
    valueFlags: ["user"],
    async run(ctx, args) {
      const user = flag(args, "user");
      const rows = await ctx.gateway.listKeys(user);
      if (!rows) throw new UsageError(`no gateway user ${user}`);
      const data = rows.map((k) => ({
        ...k,
        expiresAt: iso(k.expiresAt),
        rotatedAt: iso(k.rotatedAt),
        previousHashExpiresAt: iso(k.previousHashExpiresAt),
        lastUsedAt: iso(k.lastUsedAt),
        createdAt: iso(k.createdAt),
        deactivatedAt: iso(k.deactivatedAt),
      }));
      const state = (k: (typeof data)[number]) =>
        !k.active
          ? "deactivated"
          : k.expiresAt && Date.parse(k.expiresAt) <= Date.now()
            ? "expired"
            : "active";
      const text = data.length
        ? data
            .map((k) =>
              [
                `${k.id}  ${k.start}…  ${state(k).padEnd(11)}  ${k.email}${k.label ? `  "${k.label}"` : ""}`,
                `    last used ${k.lastUsedAt ?? "never"} · spent today ${k.spentToday}` +
                  (k.spendCaps.daily ? ` of ${k.spendCaps.daily}` : "") +
                  ` · this month ${k.spentThisMonth}` +
                  (k.spendCaps.monthly ? ` of ${k.spendCaps.monthly}` : "") +
                  (k.limits.length
                    ? ` · limits ${k.limits.map((l) => `${l.name} ${l.requests}/${l.windowSeconds}s`).join(", ")}`
                    : "") +
                  (k.expiresAt ? ` · expires ${k.expiresAt}` : ""),
              ].join("\n"),
            )
            .join("\n")
        : "no gateway keys";
      return { data, text };
    },
  },
};
