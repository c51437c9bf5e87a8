import { sql } from "drizzle-orm";
import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgEnum,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { timestamps } from "./_columns.ts";

/**
 * Gateway accounts and the ledger (docs/architecture.md §6). Coin amounts are integer base units (10 decimals) kept in
 * `numeric(38,0)` and read as strings, so no value ever passes through a JS float.
 */
export const gatewayUsers = pgTable(
  "gateway_users",
  {
    id: text().primaryKey(),
    /** Lower-cased, so uniqueness ignores case. */
    email: text().notNull(),
    passwordHash: text().notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex("gateway_users_email_key").on(t.email)],
);

/** One ledger party per user: the unique index on user_id is what makes a second create a 409. */
export const parties = pgTable(
  "parties",
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => gatewayUsers.id, { onDelete: "cascade" }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    /**
     * Spend caps in coin base units per UTC day and month (null: none), set by the user and enforced by
     * reserve.lua against what the party reserved in the window (docs/gateway.md, "Spend caps").
     */
    dailySpendCap: numeric({ precision: 38, scale: 0 }),
    monthlySpendCap: numeric({ precision: 38, scale: 0 }),
    /** `gateway.balance_low` fires when settlement takes the balance below this (base units); null: never. */
    lowBalanceThreshold: numeric({ precision: 38, scale: 0 }),
    /** Below the threshold and told so: set when the event fires, cleared when the balance is back at it. */
    lowBalanceNotified: boolean().notNull().default(false),
  },
  (t) => [uniqueIndex("parties_user_key").on(t.userId)],
);

/**
 * One named request limit of a key: `requests` per fixed window of `windowSeconds`, counted by reserve.lua
 * beside the party's limits (docs/gateway.md, "Per-key limits and spend caps").
 */
export interface KeyLimit {
  name: string;
  requests: number;
  windowSeconds: number;
}

/** Keys are bound to the user; the party is resolved through the user, so "no party" is a distinct 403. */
export const gatewayApiKeys = pgTable(
  "gateway_api_keys",
  {
    id: text().primaryKey(),
    userId: text()
      .notNull()
      .references(() => gatewayUsers.id, { onDelete: "cascade" }),
    /** Hex SHA-256 of the key; the key itself is never stored. */
    hash: text().notNull(),
    start: text().notNull(),
    /** The user's name for the key (null: none), shown next to its id. */
    label: text(),
    active: boolean().notNull().default(true),
    /** When the key stops working (null: never); the gateway refuses it from then on like a deactivated one. */
    expiresAt: timestamp({ withTimezone: true, precision: 3 }),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    deactivatedAt: timestamp({ withTimezone: true, precision: 3 }),
    /** The key's named request limits (empty: only the party's apply). */
    limits: jsonb().$type<KeyLimit[]>().notNull().default([]),
    /** The key's own spend caps per UTC day and month, coin base units (null: none), within the party's. */
    dailySpendCap: numeric({ precision: 38, scale: 0 }),
    monthlySpendCap: numeric({ precision: 38, scale: 0 }),
    /**
     * Rotation: the secret replaced last keeps working until `previousHashExpiresAt` (the grace window),
     * then is refused as rotated. One previous secret at most: rotating again ends the earlier grace.
     */
    previousHash: text(),
    previousHashExpiresAt: timestamp({ withTimezone: true, precision: 3 }),
    rotatedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    uniqueIndex("gateway_api_keys_hash_key").on(t.hash),
    uniqueIndex("gateway_api_keys_previous_hash_key").on(t.previousHash),
    index("gateway_api_keys_user").on(t.userId),
  ],
);

export const providerStatus = pgEnum("provider_status", ["active", "disabled", "degraded"]);

export const providers = pgTable(
  "providers",
  {
    id: text().primaryKey(),
    /** The `<providerKey>` path segment. */
    key: text().notNull(),
    /** Origin plus optional base path, e.g. `https://rpc.example.com/v1`. */
    originUrl: text().notNull(),
    /** Fixed USD cost per request, exact decimal (numeric → string). */
    costInUsd: numeric({ precision: 20, scale: 10 }).notNull(),
    status: providerStatus().notNull().default("active"),
    /**
     * Upgraded (WebSocket) connections are billed in slices, each reserved before it is used
     * (docs/architecture.md §11): a slice lasts at most `upgradeSliceSeconds` and carries at most
     * `upgradeSliceMessages` client messages (null: no message cap), and costs `upgradeSliceUsd` (null: the
     * request price `costInUsd`). So "per started minute" is 60 s slices, "per N messages" a message cap.
     */
    upgradeSliceUsd: numeric({ precision: 20, scale: 10 }),
    upgradeSliceSeconds: integer().notNull().default(60),
    upgradeSliceMessages: integer(),
    ...timestamps(),
  },
  (t) => [uniqueIndex("providers_key_key").on(t.key)],
);

/** Append-only history of the coin price; the newest row is the current rate. */
export const coinRates = pgTable("coin_rates", {
  id: text().primaryKey(),
  /** USD per one whole ledger coin, exact decimal. */
  usdPerCoin: numeric({ precision: 30, scale: 12 }).notNull(),
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
});

export const ledgerEntryKind = pgEnum("ledger_entry_kind", ["credit", "debit"]);

/**
 * The ledger of record: credits from funding, debits from settlement. A settlement debit charges a batch
 * of one party's reservations (each lists it as `debitId`) and is its own ref; a credit's ref is unique
 * through `ledger_credit_refs` (a retried funding with the same `--ref` is recorded once). `appliedAt`
 * marks that the entry reached the Redis balance (the credit Lua is itself idempotent by entry id; a
 * debit is written after Redis). Partitioned by month of `createdAt` (migration 0018, docs/deployment.md
 * "Partitioned history"), so the key carries it; the retention job never detaches a ledger month: the
 * balance is the sum of every entry.
 */
export const ledgerEntries = pgTable(
  "ledger_entries",
  {
    id: text().notNull(),
    partyId: text()
      .notNull()
      .references(() => parties.id),
    kind: ledgerEntryKind().notNull(),
    /** Integer base units (10 decimals), always positive; the kind gives the sign. */
    amount: numeric({ precision: 38, scale: 0 }).notNull(),
    externalRef: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
    appliedAt: timestamp({ withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    index("ledger_entries_ref").on(t.externalRef),
    index("ledger_entries_party").on(t.partyId, t.createdAt),
  ],
);

/**
 * A credit's external ref, claimed before its entry is written: a unique index on a partitioned table
 * must carry the partition key, which would let the same ref land in two months. Points at its entry
 * (id and month), so the lookup by ref reads one partition.
 */
export const ledgerCreditRefs = pgTable("ledger_credit_refs", {
  externalRef: text().primaryKey(),
  entryId: text().notNull(),
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull(),
});

export const reservationStatus = pgEnum("reservation_status", [
  "request_in_flight",
  "registered",
  "failed",
  "queued",
  "settled",
]);

/**
 * Durable record of a reservation, upserted by id off the request path (the hot copy lives in Redis).
 * Partitioned by month of `createdAt` (migration 0018), so the key is (id, createdAt): every event of a
 * reservation carries the time it was taken (`t` of its Redis record), so the upsert finds its row.
 */
export const reservations = pgTable(
  "reservations",
  {
    id: text().notNull(),
    partyId: text().notNull(),
    providerKey: text().notNull(),
    idempotencyKey: text().notNull(),
    costInUsd: numeric({ precision: 20, scale: 10 }).notNull(),
    /** Ledger coin base units charged at the rate of the moment. */
    cost: numeric({ precision: 38, scale: 0 }).notNull(),
    status: reservationStatus().notNull(),
    /** The settlement debit (ledger entry) this reservation was charged in, once settled. */
    debitId: text(),
    /** The gateway key the request came with (null: reserved by a tool, or before the column existed). */
    keyId: text(),
    /** The HTTP status the client got (the provider's, or the gateway's 502/408); null: none (it left). */
    httpStatus: smallint(),
    /** The provider's latency to its response headers, ms; null: it did not answer. */
    upstreamMs: integer(),
    /**
     * The path asked of the provider, without the query (a query may carry a secret), cut to
     * RESERVATION_PATH_MAX characters; null: not recorded (the reaper's release, or before the column existed).
     */
    path: text(),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.id, t.createdAt] }),
    // No index on the idempotency scope: duplicates are refused by Redis, nothing here looks a scope up,
    // and a long key would only make each row's index entry (and its write) heavier.
    index("reservations_party_recent").on(t.partyId, sql`${t.createdAt} desc`),
    /**
     * Settlement and the reaper select a party's open reservations by status. Partial: a settled or
     * failed row leaves it, so it stays the size of the backlog, not of a year of traffic.
     */
    index("reservations_party_open")
      .on(t.partyId, t.status, t.createdAt)
      .where(sql`${t.status} in ('request_in_flight', 'registered', 'queued')`),
  ],
);

/**
 * What the reservations of detached (archived) months listed per debit, written by the retention job as
 * it detaches a month, so the ledger check still finds each debit = Σ the reservations listing it.
 */
export const archivedDebitListings = pgTable("archived_debit_listings", {
  debitId: text().primaryKey(),
  partyId: text().notNull(),
  listed: numeric({ precision: 38, scale: 0 }).notNull(),
});

/**
 * Upper bounds (ms, inclusive) of the upstream-latency histogram buckets of the usage roll-up; one more
 * bucket counts everything slower. Fixed, so rows of any day add up bucket by bucket.
 */
export const USAGE_LATENCY_BOUNDS_MS = [
  5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000,
] as const;

/**
 * Daily usage roll-up per (party, UTC day of the request, key, provider), written by settlement in the
 * same statement that moves reservations to their final status (`settled` or `failed`), so each
 * reservation is counted once, when it closes, and `charged` sums exactly what the debits took.
 * `keyId` is "" for a reservation without a key. Latency is a histogram over USAGE_LATENCY_BOUNDS_MS
 * (percentiles are read from it); only requests the provider answered have one.
 */
export const gatewayUsageDaily = pgTable(
  "gateway_usage_daily",
  {
    partyId: text().notNull(),
    day: date({ mode: "string" }).notNull(),
    keyId: text().notNull(),
    providerKey: text().notNull(),
    requests: bigint({ mode: "number" }).notNull(),
    /** Reservations settled (paid, free ones included) and the coin base units they were charged. */
    settled: bigint({ mode: "number" }).notNull(),
    charged: numeric({ precision: 38, scale: 0 }).notNull(),
    /** Reservations failed (released) and the coin base units released. */
    failed: bigint({ mode: "number" }).notNull(),
    released: numeric({ precision: 38, scale: 0 }).notNull(),
    status2xx: bigint("status_2xx", { mode: "number" }).notNull(),
    status3xx: bigint("status_3xx", { mode: "number" }).notNull(),
    status4xx: bigint("status_4xx", { mode: "number" }).notNull(),
    status5xx: bigint("status_5xx", { mode: "number" }).notNull(),
    /** No status reached the client (it left before the answer). */
    statusNone: bigint({ mode: "number" }).notNull(),
    latencyBuckets: bigint({ mode: "number" }).array().notNull(),
  },
  (t) => [primaryKey({ columns: [t.partyId, t.day, t.keyId, t.providerKey] })],
);
