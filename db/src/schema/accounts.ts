import { sql } from "drizzle-orm";
import { index, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { timestamps } from "./_columns.ts";

export const organisationStatus = pgEnum("organisation_status", [
  "pending",
  "approved",
  "rejected",
  "suspended",
]);

/** Where an organisation signed up: account v1 and v2 share this one table and differ only at the edge. */
export const accountApi = pgEnum("account_api", ["v1", "v2"]);

/**
 * The chain identifiers a scope may name: the chains the platform serves, and bitcoin, which v1
 * registration accepts. A scope naming any other (a misspelt "solanna") is refused at sign-up: it would
 * otherwise leave the intended chain unrestricted.
 */
export const SCOPE_CHAINS = ["ethereum", "solana", "hyperliquid", "polygon", "sui", "bitcoin"] as const;

/**
 * Addresses an organisation may act for, per chain. A chain whose lists are empty (or absent) is
 * unrestricted. v1 `allowedAddresses` are stored as `delegator_addresses`.
 */
export type OrganisationScope = Record<
  string,
  { validator_addresses: string[]; delegator_addresses: string[] }
>;

export const organisations = pgTable(
  "organisations",
  {
    id: text().primaryKey(),
    orgName: text().notNull(),
    /** Lower-cased, so uniqueness ignores case. */
    email: text().notNull(),
    passwordHash: text().notNull(),
    scope: jsonb().$type<OrganisationScope>().notNull().default({}),
    status: organisationStatus().notNull().default("pending"),
    signedUpVia: accountApi().notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex("organisations_email_key").on(t.email)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text().primaryKey(),
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    label: text().notNull(),
    /** Hex SHA-256 of the key; the key itself is never stored. */
    hash: text().notNull(),
    /** Display prefix of the key, e.g. `stk_4fJ9aZ`. */
    start: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    revokedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex("api_keys_hash_key").on(t.hash),
    index("api_keys_active_by_organisation").on(t.organisationId).where(sql`${t.revokedAt} is null`),
  ],
);
