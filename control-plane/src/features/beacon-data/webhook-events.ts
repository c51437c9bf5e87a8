import type { DbOrTx } from "@stake/db/client";
import { sql } from "drizzle-orm";
import { emitEvents, type OutboxEvent } from "../../platform/outbox.ts";
import type { ChainSpec } from "./client.ts";
import type { EpochData } from "./epoch-rewards.ts";

/**
 * The beacon indexer's webhook events, written by the indexer in the transaction of the epoch
 * (or finalization) that caused them, through the webhooks area's outbox port: every organisation tracking
 * a validator (provisioned or registered) is told. Functions of `(tx, args)` like indexer-repo.ts.
 */

/** What the indexer knew of a validator before this epoch's write. */
export interface Before {
  beaconStatus: string | null;
  fallingEpochs: number;
}

/** Reads `Before` for the epoch's validators (one statement; the indexer's lock is held). */
export async function readBefore(tx: DbOrTx, pubkeys: string[]): Promise<Map<string, Before>> {
  if (!pubkeys.length) return new Map();
  const rows = await tx.execute<{ pubkey: string; beacon_status: string | null; falling_epochs: number }>(sql`
    select t.pubkey, max(b.beacon_status) as beacon_status, coalesce(max(b.falling_epochs), 0)::int as falling_epochs
    from beacon_tracked_validators t left join beacon_validators b on b.pubkey = t.pubkey
    where t.pubkey = any(${`{${pubkeys.join(",")}}`}::text[]) group by t.pubkey`);
  return new Map(
    rows.map((r) => [r.pubkey, { beaconStatus: r.beacon_status, fallingEpochs: r.falling_epochs }]),
  );
}

/**
 * Epochs in a row each validator's balance fell: its CL reward of the epoch (balance change net of
 * deposits, withdrawals and consolidations, epoch-rewards.ts) below zero extends the run, anything else
 * ends it. Penalties for missed duties are what makes it negative.
 */
export function fallingEpochs(data: EpochData, before: Map<string, Before>): number[] {
  const cl = new Map(data.rewards.map((r) => [r.validatorIndex, r.clRewardGwei]));
  return data.validators.map((v) => {
    const reward = v.validatorIndex === null ? undefined : cl.get(v.validatorIndex);
    return reward !== undefined && reward < 0n ? (before.get(v.pubkey)?.fallingEpochs ?? 0) + 1 : 0;
  });
}

const slashed = (s: string | null) => s?.endsWith("_slashed") ?? false;

/**
 * `validator.slashed` when the beacon status turns `*_slashed`, `validator.offline` when a falling run
 * reaches `offlineEpochs` (exactly then: once per episode, until a rise ends it). The epoch's
 * `validator.status_changed` events are status-changes.ts's, written with the steps.
 */
export async function emitEpochEvents(
  tx: DbOrTx,
  args: {
    data: EpochData;
    before: Map<string, Before>;
    falling: number[];
    offlineEpochs: number;
  },
) {
  const { data, before } = args;
  const events: { pubkey: string; event: Omit<OutboxEvent, "owner"> }[] = [];
  data.validators.forEach((v, i) => {
    if (v.validatorIndex === null) return;
    if (slashed(v.beaconStatus) && !slashed(before.get(v.pubkey)?.beaconStatus ?? null))
      events.push({
        pubkey: v.pubkey,
        event: {
          type: "validator.slashed",
          data: { pubkey: v.pubkey, validatorIndex: v.validatorIndex, epoch: data.epoch },
        },
      });
    if (args.falling[i] === args.offlineEpochs)
      events.push({
        pubkey: v.pubkey,
        event: {
          type: "validator.offline",
          data: {
            pubkey: v.pubkey,
            validatorIndex: v.validatorIndex,
            epoch: data.epoch,
            fallingEpochs: args.offlineEpochs,
            balanceGwei: v.balanceGwei.toString(),
          },
        },
      });
  });
  if (!events.length) return;
  const owners = await tx.execute<{ organisation_id: string; pubkey: string }>(sql`
    select organisation_id, pubkey from beacon_tracked_validators
    where pubkey = any(${`{${[...new Set(events.map((e) => e.pubkey))].join(",")}}`}::text[])`);
  const byPubkey = new Map<string, string[]>();
  for (const o of owners) byPubkey.set(o.pubkey, [...(byPubkey.get(o.pubkey) ?? []), o.organisation_id]);
  await emitEvents(
    tx,
    events.flatMap((e) =>
      (byPubkey.get(e.pubkey) ?? []).map(
        (id) => ({ ...e.event, owner: { kind: "organisation", id } }) as OutboxEvent,
      ),
    ),
  );
}

/**
 * `rewards.daily_closed` per organisation for each UTC day that the finalized checkpoint moving from
 * `from` to `to` made final (every epoch starting that day is before `to`), with the day's totals from the
 * organisations' rollup. At most the last 7 such days, so a first finalization after a long pause does not
 * tell a year of days.
 */
export async function emitClosedDays(tx: DbOrTx, spec: ChainSpec, from: number, to: number) {
  const epochSeconds = spec.slotsPerEpoch * spec.secondsPerSlot;
  const dayOf = (epoch: number) => Math.floor((spec.genesisTime + epoch * epochSeconds) / 86_400);
  const [first, end] = [Math.max(dayOf(Math.max(0, from)), dayOf(to) - 7), dayOf(to)];
  if (to <= from || first >= end) return;
  const iso = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
  const rows = await tx.execute<{
    organisation_id: string;
    day: string;
    cl: string;
    el: string;
    epochs: number;
  }>(sql`
    select organisation_id, day::text, cl_reward_gwei::text as cl, el_reward_gwei::text as el, epochs
    from beacon_rewards_org_daily where day >= ${iso(first)}::date and day < ${iso(end)}::date
    order by day, organisation_id`);
  await emitEvents(
    tx,
    rows.map((r) => ({
      owner: { kind: "organisation", id: r.organisation_id },
      type: "rewards.daily_closed",
      data: {
        chain: "ethereum",
        date: r.day,
        validatorEpochs: r.epochs,
        clRewardsGwei: r.cl,
        elRewardsGwei: r.el,
      },
    })),
  );
}
