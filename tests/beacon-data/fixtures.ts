import { QUEUES } from "../../control-plane/src/queues.ts";
import { startBeaconDevnet } from "../../devnet/beacon/server.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";

/**
 * A beacon devnet (4 slots an epoch) with a real execution node, the control plane pointed at both, and the
 * worker's roll-up of registrations (POST /api/validators/register waits for it). `env` sets the rest.
 */
export async function startBeaconEnv(opts: {
  backgroundValidators: number;
  env: Record<string, string>;
  /** The devnet's first Electra epoch (default 0). */
  electraForkEpoch?: number;
}) {
  const devnet = await startBeaconDevnet({
    execution: true,
    backgroundValidators: opts.backgroundValidators,
    slotsPerEpoch: 4,
    ...(opts.electraForkEpoch !== undefined ? { electraForkEpoch: opts.electraForkEpoch } : {}),
  });
  const h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution!.url,
    ...opts.env,
  });
  const jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
  return {
    devnet,
    h,
    async close() {
      await jobs.close();
      await h.close();
      await devnet.close();
    },
  };
}

/** Every row the beacon-data indexer writes, in a fixed order: two indexes of one chain compare equal. */
export async function indexedRows(sql: ControlPlaneHarness["sql"]) {
  return {
    rewards: await sql`select * from beacon_rewards order by epoch, validator_index`,
    daily: await sql`select * from beacon_rewards_daily order by day, validator_index`,
    orgDaily: await sql`select * from beacon_rewards_org_daily order by organisation_id, day`,
    networkDaily: await sql`select * from beacon_rewards_network_daily order by day`,
    txs: await sql`select * from beacon_transactions order by uid`,
    history: await sql`select * from beacon_status_history order by pubkey, status`,
    statusEpochs: await sql`select * from beacon_status_epochs order by pubkey, status`,
    validators: await sql`select * from beacon_validators order by pubkey`,
  };
}
