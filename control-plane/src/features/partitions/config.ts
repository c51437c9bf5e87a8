import { z } from "zod";

const int = (min: number, fallback: number, description: string) =>
  z.coerce.number().int().min(min).default(fallback).describe(description);

/**
 * The partition job's variables (docs/deployment.md "Partitioned history"), composed into the
 * control plane's (`config.ts`). Retention defaults keep everything: an upgrade never archives data the
 * operator did not ask to let go.
 */
export const PartitionsConfig = z
  .object({
    PARTITIONS_AHEAD: int(
      1,
      2,
      "Partitions the partition job keeps ready past the current one: months of reservations and ledger entries, ranges of BEACON_REWARDS_PARTITION_EPOCHS epochs of beacon rewards.",
    ),
    PARTITION_JOB_INTERVAL_MS: int(1_000, 3_600_000, "Pause between two passes of the partition job."),
    RESERVATIONS_RETENTION_MONTHS: int(
      0,
      0,
      "Whole UTC months of reservations kept attached before the current one; older months are detached (DETACHED_PARTITIONS says what becomes of them) once none of their reservations is open. 0 keeps every month.",
    ),
    BEACON_REWARDS_RETENTION_DAYS: int(
      0,
      0,
      "Days of per-epoch beacon rewards kept attached; older finalized ranges are detached (the day and organisation sums stay). 0 keeps every epoch.",
    ),
    BEACON_REWARDS_PARTITION_EPOCHS: int(
      32,
      1575,
      "Epochs per beacon_rewards partition the partition job creates (1575: 7 days of 12-second slots).",
    ),
    DETACHED_PARTITIONS: z
      .enum(["archive", "drop"])
      .default("archive")
      .describe(
        "What the partition job does with a partition past its retention: `archive` moves it, detached, into the `archive` schema (a plain table to dump and drop); `drop` drops it.",
      ),
  })
  .transform((e) => ({
    ahead: e.PARTITIONS_AHEAD,
    intervalMs: e.PARTITION_JOB_INTERVAL_MS,
    reservationsRetentionMonths: e.RESERVATIONS_RETENTION_MONTHS,
    beaconRewardsRetentionDays: e.BEACON_REWARDS_RETENTION_DAYS,
    beaconRewardsPartitionEpochs: e.BEACON_REWARDS_PARTITION_EPOCHS,
    detached: e.DETACHED_PARTITIONS,
  }));

export type PartitionsConfig = z.output<typeof PartitionsConfig>;
