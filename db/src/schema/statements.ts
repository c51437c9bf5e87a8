import { date, numeric, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { organisations } from "./accounts.ts";

/**
 * Daily price of a token, fed by the operator (`npm run operator -- prices set`), never fetched: a
 * statement values a day's rewards at that day's price and leaves the cell empty where there is none
 * (docs/spec.md, Statements).
 */
export const tokenPrices = pgTable(
  "token_prices",
  {
    /** eth, sol, pol, sui, hype (lower case). */
    token: text().notNull(),
    day: date({ mode: "string" }).notNull(),
    currency: text().notNull(),
    /** Price of one whole token, exact decimal. */
    price: numeric({ precision: 38, scale: 18 }).notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.token, t.currency, t.day] })],
);

/** One `statement.ready` told per organisation, chain and month: the row is the once-only guard. */
export const statementNotices = pgTable(
  "statement_notices",
  {
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    chain: text().notNull(),
    /** YYYY-MM. */
    month: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organisationId, t.chain, t.month] })],
);
