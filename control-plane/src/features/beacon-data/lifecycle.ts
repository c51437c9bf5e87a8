import { beaconStatus, validatorStatus } from "@stake/db/schema/beacon-data";
import { z } from "zod";

/** The spec's validator lifecycle status (one Postgres enum); UNKNOWN aside, a validator passes them in order. */
export type Lifecycle = (typeof validatorStatus.enumValues)[number];
/** Every lifecycle status in enum order (the provisioning area's status counts list them all). */
export const LIFECYCLE_STATUSES = validatorStatus.enumValues;
export const LIFECYCLE: readonly Lifecycle[] = validatorStatus.enumValues.filter((s) => s !== "UNKNOWN");

/** Beacon API status → lifecycle status (spec "Beacon status" → "Validator lifecycle status"). */
export function lifecycleOf(beaconStatus: string): Lifecycle {
  switch (beaconStatus) {
    case "pending_initialized":
    case "pending_queued":
      return "PENDING";
    case "active_ongoing":
      return "ACTIVE";
    case "active_exiting":
    case "active_slashed":
      return "EXIT_SENT";
    case "exited_unslashed":
    case "exited_slashed":
    case "withdrawal_possible":
      return "EXITED";
    case "withdrawal_done":
      return "WITHDRAWAL_DONE";
    default:
      return "UNKNOWN";
  }
}

/**
 * The statuses a validator went through to reach `to` from `from` (exclusive), `to` included. A validator
 * seen ACTIVE when we last saw it PENDING... passed every status in between, at the latest at the time it was
 * seen in `to`; EXIT_REQUESTED is the one optional step (only an exit request we saw records it), and
 * CREATED only exists for validators provisioned here.
 */
export function transitions(from: Lifecycle | null, to: Lifecycle): Lifecycle[] {
  if (to === "UNKNOWN") return [];
  const start = from === null || from === "UNKNOWN" ? 0 : LIFECYCLE.indexOf(from) + 1;
  const end = LIFECYCLE.indexOf(to);
  return LIFECYCLE.slice(Math.max(start, 1), end + 1).filter((s) => s === to || s !== "EXIT_REQUESTED");
}

export const later = (a: Lifecycle | null, b: Lifecycle) =>
  a === null || a === "UNKNOWN" || (b !== "UNKNOWN" && LIFECYCLE.indexOf(b) > LIFECYCLE.indexOf(a)) ? b : a;

/** The Beacon API's validator statuses (one Postgres enum), as the API answers them. */
export const BeaconStatus = z.enum(beaconStatus.enumValues);

/** Our addition (docs/spec.md "Beacon status"): each beacon status reached, with its epoch by the rules. */
export const BeaconStatusHistory = z
  .array(
    z.object({
      status: BeaconStatus,
      epoch: z.number().int().nullable().meta({
        description:
          "pending_queued: activation_eligibility_epoch, active_ongoing: activation_epoch, exited_*: exit_epoch, withdrawal_possible: withdrawable_epoch (the state's fields); the others the first epoch the indexer read the validator in that status, null when it passed between two reads.",
      }),
    }),
  )
  .meta({ description: "The beacon statuses reached, in the order a validator walks them (our addition)." });
