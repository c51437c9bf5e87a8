import assert from "node:assert/strict";
import supertest from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnetOptions } from "../../devnet/beacon/consensus/server.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";

/**
 * The consensus devnet (Lodestar's state transition, minimal preset: 8 slots an epoch) with anvil as its
 * execution node, the control plane pointed at both, and the worker's roll-up of registrations (POST
 * /api/validators/register waits for it). `validators` genesis validators (few: each signs every slot);
 * `devnet` sets the rest of the chain (a custom genesis), `env` the control plane's.
 */
export async function startBeaconEnv(opts: {
  validators: number;
  env: Record<string, string>;
  devnet?: ConsensusDevnetOptions;
}) {
  // The preset is set before any @lodestar module loads (load.ts): the devnet is imported dynamically.
  const { startConsensusDevnet } = await loadLodestar();
  const devnet = await startConsensusDevnet({ execution: true, validators: opts.validators, ...opts.devnet });
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
export type BeaconEnv = Awaited<ReturnType<typeof startBeaconEnv>>;

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

/** How many times the node served each state's pending deposits, as [slot, requests] by slot. */
export const depositQueueReads = (requests: Map<string, number>) =>
  [...requests.entries()]
    .flatMap(([path, n]) => {
      const m = /\/states\/(\d+)\/pending_deposits$/.exec(path);
      return m ? [[Number(m[1]), n] as [number, number]] : [];
    })
    .sort((a, b) => a[0] - b[0]);

/** A row of `GET /api/transactions`, as far as the tests sum and sort them. */
export interface TransactionOut {
  type: string;
  layer: string;
  amount: string;
}

/**
 * Every page of `pubkey`'s transactions (newest first). A validator in the sync committee earns every block
 * and is swept nearly every slot: its withdrawals can outgrow one page of 100.
 */
export async function transactionsOf(app: ControlPlaneHarness["app"], apiKey: string, pubkey: string) {
  const all: TransactionOut[] = [];
  for (let page = 1, pages = 1; page <= pages; page++) {
    const res = await supertest(app)
      .get("/api/transactions")
      .set("api-key", apiKey)
      .query({ pubkeys: pubkey, per_page: 100, page });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    pages = res.body.pages;
    all.push(...res.body.results);
  }
  return all;
}
