import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import request from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { buildScenario, SAMPLE } from "../../devnet/sui/scenario.ts";
import { startSuiDevnet } from "../../devnet/sui/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";

describe("Sui indexer in the worker (BullMQ job scheduler)", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("indexes the pools and the scoped delegators on its own; the API then answers from Postgres", async () => {
    const scenario = buildScenario();
    const dev = await startSuiDevnet({ chain: scenario.chain });
    cleanups.push(() => dev.close());
    const h = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "sui-rewards",
      SUI_RPC_URL: dev.url,
      SUI_VALIDATOR_ADDRESSES: `${scenario.validators.operator},${scenario.validators.sample}`,
      SUI_INDEX_INTERVAL_MS: "1000",
    });
    cleanups.push(() => h.close());
    const org = await makeOrganisation(h.db, {
      scope: { sui: { delegator_addresses: [SAMPLE.delegator], validator_addresses: [] } },
    });
    const sui = await startJobs(h, [QUEUES.suiIndex.name]);
    cleanups.push(() => sui.close());

    await eventually(
      async () => {
        const [row] = await h.sql`select synced_at from sui_delegators where address = ${SAMPLE.delegator}`;
        return Boolean(row?.synced_at);
      },
      { what: "the worker to sync the scoped delegator" },
    );
    const pools = await h.sql`select indexed_through_epoch from sui_pools order by pool_id`;
    assert.deepEqual(
      pools.map((p) => p.indexed_through_epoch),
      [700, 700],
    );

    // The node goes away: the scoped delegator is still answered, from what the worker stored.
    await dev.close();
    const res = await request(h.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", org.apiKey)
      .send({ stake_account_address: SAMPLE.delegator, start_date: "2025-01-01", end_date: "2025-01-02" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.rewards[1].totalRewards, "312387615226");
  });
});
