import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { reservations } from "@stake/db/schema/gateway";

/** What every settlement step runs on: Postgres (the ledger of record) and the hot copy in Redis. */
export interface SettlementDeps {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export type Status = (typeof reservations.$inferSelect)["status"];

/** Points between the steps of one party's settlement, where a test can inject a crash. */
export const SETTLEMENT_STEPS = ["drained-to-postgres", "settled-in-redis", "debited-in-postgres"] as const;
export type SettlementStep = (typeof SETTLEMENT_STEPS)[number];

export interface SettlementOptions {
  /** In-flight reservations older than this are failed (upstream timeout plus a grace period). */
  reapAfterMs: number;
  /** How long a closed (settled or failed) reservation record stays in Redis: the idempotency window. */
  ttlSeconds: number;
  /** Parties taken from the dirty set at a time. */
  partyBatch?: number;
  /** Length of a worker's lease on a party (lease.ts); DEFAULT_LEASE_MS when absent. */
  leaseMs?: number;
  now?: () => number;
  /** Called after each step; throwing here simulates a crash at that point. */
  afterStep?: (step: SettlementStep, partyId: string) => void | Promise<void>;
}

/** Statuses whose cost is still held in `reserved`. */
export const OPEN_STATUSES: Status[] = ["request_in_flight", "registered", "queued"];

/**
 * How far a status is along; a reservation never moves back. `failed` outranks `registered`: a provider
 * that breaks off a 2xx body releases a registered reservation (Redis refuses that once it is queued, so
 * `failed` and `queued` never meet on one reservation).
 */
export const RANK: Record<Status, number> = {
  request_in_flight: 0,
  registered: 1,
  failed: 2,
  queued: 2,
  settled: 3,
};
