import { createStatementsRepo } from "@stake/control-plane/operator";
import { type Command, requirePositional, UsageError } from "./context.ts";

const TOKEN = /^[a-z]{2,10}$/;
const CURRENCY = /^[A-Z]{3,5}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PRICE = /^\d{1,20}(\.\d{1,18})?$/;

function tokenAndCurrency(args: Parameters<Command["run"]>[1]) {
  const token = requirePositional(args, 0, "token").toLowerCase();
  const currency = requirePositional(args, 1, "currency").toUpperCase();
  if (!TOKEN.test(token)) throw new UsageError("token: a symbol such as eth, hype, sol");
  if (!CURRENCY.test(currency)) throw new UsageError("currency: a code such as USD");
  return { token, currency };
}

/**
 * The daily price series statements value rewards at (docs/spec.md, Statements): fed by the operator,
 * like the coin rate, never fetched from outside. A day without a price leaves the value cell empty.
 */
export const priceCommands: Record<string, Command> = {
  "prices set": {
    usage: "prices set <token> <currency> <YYYY-MM-DD=price,...>",
    summary: "set (or replace) a token's price on each given UTC day",
    async run(ctx, args) {
      const { token, currency } = tokenAndCurrency(args);
      const pairs = requirePositional(args, 2, "YYYY-MM-DD=price,...").split(",");
      const days = pairs.map((p) => {
        const [day = "", price = ""] = p.split("=");
        const parsed = new Date(`${day}T00:00:00Z`);
        if (!DAY.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day)
          throw new UsageError(`${p}: the day must be YYYY-MM-DD`);
        if (!PRICE.test(price)) throw new UsageError(`${p}: the price must be a non-negative decimal`);
        return { day, price };
      });
      await createStatementsRepo(ctx.db).setPrices(token, currency, days);
      return {
        data: { token, currency, days },
        text: `${days.length} ${token.toUpperCase()} price(s) in ${currency} set`,
      };
    },
  },
  "prices show": {
    usage: "prices show <token> <currency> <YYYY-MM>",
    summary: "a token's daily prices of one month",
    async run(ctx, args) {
      const { token, currency } = tokenAndCurrency(args);
      const month = requirePositional(args, 2, "month");
      if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError("month: YYYY-MM");
      const [y, m] = month.split("-").map(Number) as [number, number];
      const end = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, "0")}-01`;
      const prices = await createStatementsRepo(ctx.db).prices(token, currency, `${month}-01`, end);
      const data = [...prices.entries()].sort().map(([day, price]) => ({ day, price }));
      const text = data.length
        ? data.map((d) => `${d.day}  ${d.price} ${currency}`).join("\n")
        : `no ${token} prices in ${currency} for ${month}`;
      return { data, text };
    },
  },
};
