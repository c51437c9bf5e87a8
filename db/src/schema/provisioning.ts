import { sql } from "drizzle-orm";
import {
  bigint,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { timestamps } from "./_columns.ts";
import { organisations } from "./accounts.ts";

export const provisionStatus = pgEnum("provision_status", ["IN_PROGRESS", "CREATED", "FAILED"]);

/** The attributes exactly as accepted (normalised), kept for idempotent replays and audits. */
export interface ProvisionAttributes {
  withdrawalAddress: string;
  controllerAddress: string | null;
  feeRecipient: string | null;
  validatorsCount: number;
  batch: boolean;
  compounding: boolean;
  /** Gwei per validator, decimal string. */
  amountPerValidatorGwei: string;
}

/** One POST /api/provision: the job's state and, for batch provisions, the one batch-depositor call. */
export const provisions = pgTable(
  "provisions",
  {
    id: uuid().primaryKey(),
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    attributes: jsonb().$type<ProvisionAttributes>().notNull(),
    network: text().notNull(),
    status: provisionStatus().notNull().default("IN_PROGRESS"),
    reason: text(),
    /** Idempotency-Key header; a replay with another body (different requestHash) is a conflict. */
    idempotencyKey: text(),
    requestHash: text().notNull(),
    batchDepositInput: text(),
    batchTo: text(),
    /** Wei, decimal string. */
    batchValue: text(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex("provisions_idempotency_key")
      .on(t.organisationId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    index("provisions_by_organisation").on(t.organisationId, t.createdAt),
  ],
);

/**
 * Validators created by a provision. `keyIndex` is the EIP-2334 index i of m/12381/3600/i/0/0 under the
 * operator seed; its uniqueness is what guarantees no two validators ever share a signing key.
 */
export const validators = pgTable(
  "validators",
  {
    id: uuid().primaryKey(),
    provisionId: uuid()
      .notNull()
      .references(() => provisions.id, { onDelete: "cascade" }),
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    /** Position inside the provision, for stable paging. */
    position: integer().notNull(),
    keyIndex: integer().notNull(),
    pubkey: text().notNull(),
    /** AES-256-GCM under the configured key-encryption key: `v1.<iv>.<tag>.<ciphertext>` (base64url). */
    encryptedSigningKey: text().notNull(),
    withdrawalCredentials: text().notNull(),
    amountGwei: bigint({ mode: "bigint" }).notNull(),
    signature: text().notNull(),
    depositMessageRoot: text().notNull(),
    depositDataRoot: text().notNull(),
    forkVersion: text().notNull(),
    networkName: text().notNull(),
    depositInput: text().notNull(),
    depositTo: text().notNull(),
    /** Wei, decimal string. */
    depositValue: text().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("validators_key_index").on(t.keyIndex),
    uniqueIndex("validators_pubkey").on(t.pubkey),
    index("validators_by_provision").on(t.provisionId, t.position),
    // Lifecycle status and index are beacon-data's (beacon_validators), read through its tracking port.
    index("validators_by_organisation").on(t.organisationId, t.createdAt),
  ],
);

/** Next free EIP-2334 index per operator seed (identified by a fingerprint, never the seed). */
export const keyIndexAllocator = pgTable("key_index_allocator", {
  seedId: text().primaryKey(),
  nextIndex: integer().notNull(),
});

/**
 * One hand-out of pre-signed voluntary exits (POST /api/validators/exit-messages): who received which
 * validators' exits, encrypted to which key (its RFC 7638 thumbprint), signed for which epoch. Never the
 * exits themselves: a signed exit is as good as the exit, so none is stored in clear or encrypted here.
 */
export const exitMessageHandouts = pgTable(
  "exit_message_handouts",
  {
    id: uuid().primaryKey(),
    organisationId: text()
      .notNull()
      .references(() => organisations.id, { onDelete: "cascade" }),
    /** The API key that asked for them (its id, never the key). */
    keyId: text().notNull(),
    pubkeys: text().array().notNull(),
    recipientKeyThumbprint: text().notNull(),
    epoch: integer().notNull(),
    createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index("exit_message_handouts_by_organisation").on(t.organisationId, t.createdAt)],
);
