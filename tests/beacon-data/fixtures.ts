import type { ControlPlaneHarness } from "../helpers/control-plane.ts";

/** Every row the beacon-data indexer writes, in a fixed order: two indexes of one chain compare equal. */
export async function indexedRows(sql: ControlPlaneHarness["sql"]) {
  return {
    rewards: await sql`select * from beacon_rewards order by epoch, validator_index`,
    daily: await sql`select * from beacon_rewards_daily order by day, validator_index`,
    orgDaily: await sql`select * from beacon_rewards_org_daily order by organisation_id, day`,
    txs: await sql`select * from beacon_transactions order by uid`,
    history: await sql`select * from beacon_status_history order by pubkey, status`,
    validators: await sql`select * from beacon_validators order by pubkey`,
  };
}
