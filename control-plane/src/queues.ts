import type { Queue } from "bullmq";

/**
 * Every BullMQ queue of the control plane, once (docs/architecture.md §12 and §15): its name, how it runs,
 * and the payload its jobs carry. A `repeating` queue is a job scheduler's pass (no payload: the pass
 * resumes from what it keeps in Postgres); a `queue` is work the API enqueues and the worker takes.
 * Settlement and webhook delivery are timer loops, not queues (§9).
 */
export const QUEUES = {
  provision: { name: "beacon-provision", kind: "queue" },
  beaconIndex: { name: "beacon-data-index", kind: "repeating" },
  beaconRegistrations: { name: "beacon-data-registrations", kind: "queue" },
  suiIndex: { name: "sui-rewards-index", kind: "repeating" },
  suiDelegators: { name: "sui-rewards-delegators", kind: "queue" },
  polygonSnapshots: { name: "polygon-rewards-snapshots", kind: "repeating" },
  reservationDrain: { name: "gateway-reservation-drain", kind: "queue" },
  partitions: { name: "partitions", kind: "repeating" },
  statementNotices: { name: "statements-ready", kind: "repeating" },
} as const satisfies Record<string, { name: string; kind: "queue" | "repeating" }>;

/** The payload of each queue's jobs, by queue name. */
export interface QueuePayloads {
  /** A provision to carry out (jobId = provisionId; POST /api/provision). */
  "beacon-provision": { provisionId: string };
  "beacon-data-index": Record<string, never>;
  /** Registrations waiting for their organisation's roll-up (POST /api/validators/register). */
  "beacon-data-registrations": Record<string, never>;
  "sui-rewards-index": Record<string, never>;
  /** A delegator a request asked for before the worker followed it (POST /sui/rewards/daily). */
  "sui-rewards-delegators": { address: string };
  "polygon-rewards-snapshots": Record<string, never>;
  /** A party whose reservation log a reader wants in Postgres now (GET /api/reservations, /api/usage). */
  "gateway-reservation-drain": { partyId: string };
  partitions: Record<string, never>;
  "statements-ready": Record<string, never>;
}

type Entry = (typeof QUEUES)[keyof typeof QUEUES];
export type QueueName = Entry["name"];
/** Queues whose jobs the API enqueues. */
export type WorkQueueName = Extract<Entry, { kind: "queue" }>["name"];
/** Queues that are a job scheduler's repeating pass. */
export type RepeatingQueueName = Extract<Entry, { kind: "repeating" }>["name"];
export type JobQueue<N extends QueueName> = Queue<QueuePayloads[N]>;
