import type { ControlPlaneHarness } from "../helpers/control-plane.ts";

/**
 * A month of indexed Ethereum data written the way the beacon follower writes it (per-epoch rows, their
 * daily rollup by the epoch's first slot, consensus-layer withdrawals): four epochs a UTC day (675 s slots,
 * 32 an epoch) from 2026-09-30, so October 2026 is whole and finalized. Every amount follows a formula of
 * (validator, epoch), some CL rewards negative, a proposal now and then.
 */
export const GENESIS = Date.parse("2026-09-30T00:00:00Z") / 1000;
export const EPOCH_SECONDS = 675 * 32;
export const EPOCHS = 4 * 34;
export const pubkeyOf = (i: number) => `0x${(i + 1).toString(16).padStart(4, "0").repeat(24)}`;
export const indexOf = (pubkey: string) => Number.parseInt(pubkey.slice(2, 6), 16) - 1;
/** The balance at the end of `epoch` (the seed's formula), to recompute the end-of-day column. */
export const balanceAt = (v: number, epoch: number) => 32_000_000_000n + BigInt(v * 1000 + epoch * 50);

export async function seedEthereum(h: ControlPlaneHarness, validators: number, owners: string[]) {
  const pubkeys = Array.from({ length: validators }, (_, i) => pubkeyOf(i));
  await h.sql`insert into beacon_indexer_cursor (id, epoch, finalized_epoch, genesis_time, seconds_per_slot, slots_per_epoch)
    values ('beacon', ${EPOCHS - 1}, ${EPOCHS - 3}, ${GENESIS}, 675, 32)`;
  await h.sql`insert into beacon_validators (pubkey, validator_index, beacon_status, lifecycle_status, balance_gwei, updated_epoch)
    select p, i - 1, 'active_ongoing', 'ACTIVE', 32000000000, ${EPOCHS - 1}::int
    from unnest(${pubkeys}::text[]) with ordinality as x(p, i)`;
  await h.sql`insert into beacon_tracked_validators (organisation_id, source, pubkey)
    select o, 'registered', p from unnest(${owners}::text[], ${pubkeys}::text[]) as x(o, p)`;
  await h.sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei)
    select v, e, 32000000000 + v * 1000 + e * 50, ((v * 7 + e * 13) % 4000) - 500, m + f, m, f
    from generate_series(0, ${validators - 1}::int) v, generate_series(0, ${EPOCHS - 1}::int) e,
         lateral (select case when (v + e) % 17 = 0 then 40000000 else 0 end as m,
                         case when (v + e) % 11 = 0 then 2500000 else 0 end as f) x`;
  await h.sql`insert into beacon_rewards_daily (validator_index, day, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
    select validator_index, (to_timestamp((${GENESIS}::bigint + epoch * ${EPOCH_SECONDS}::bigint)::float8) at time zone 'UTC')::date,
           sum(cl_reward_gwei), sum(el_reward_gwei), sum(mev_reward_gwei), sum(priority_fee_gwei), sum(balance_gwei), count(*)
    from beacon_rewards group by 1, 2`;
  return pubkeys;
}

/**
 * The organisations' and the network's daily rollups of what `seedEthereum` wrote, summed as the follower
 * keeps them (each organisation its tracked validators, the network every tracked validator once): what
 * `GET /api/rates` divides.
 */
export async function seedRollups(h: ControlPlaneHarness) {
  const sums = h.sql`sum(r.cl_reward_gwei), sum(r.el_reward_gwei), sum(r.mev_reward_gwei), sum(r.priority_fee_gwei),
    sum(r.balance_sum_gwei), sum(r.epochs)`;
  await h.sql`insert into beacon_rewards_org_daily (organisation_id, day, cl_reward_gwei, el_reward_gwei,
      mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
    select t.organisation_id, r.day, ${sums}
    from beacon_tracked_validators t join beacon_validators b on b.pubkey = t.pubkey
    join beacon_rewards_daily r on r.validator_index = b.validator_index group by 1, 2`;
  await h.sql`insert into beacon_rewards_network_daily (day, cl_reward_gwei, el_reward_gwei, mev_reward_gwei,
      priority_fee_gwei, balance_sum_gwei, epochs)
    select r.day, ${sums} from beacon_rewards_daily r
    where r.validator_index in (select b.validator_index from beacon_validators b
                                join beacon_tracked_validators t on t.pubkey = b.pubkey)
    group by 1`;
}

/** A consensus-layer withdrawal of `gwei` to `pubkey` at `iso`. */
export async function seedWithdrawal(h: ControlPlaneHarness, pubkey: string, iso: string, gwei: bigint) {
  const ts = Date.parse(iso) / 1000;
  await h.sql`insert into beacon_transactions (uid, pubkey, type, layer, transaction_hash, block_number, block_timestamp,
      data, fee_gwei, "from", "to", amount_gwei, slot, finalized)
    values (${`cl:${pubkey}:${ts}`}, ${pubkey}, 'PARTIAL_EXIT', 'CONSENSUS_LAYER', ${`0x${"0".repeat(64)}`}, ${ts % 100000},
      ${ts}, '0x', 0, ${pubkey}, ${`0x${"ab".repeat(20)}`}, ${gwei.toString()}, ${ts % 100000}, true)`;
}
