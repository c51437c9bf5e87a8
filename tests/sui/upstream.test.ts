import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import request from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { devnetId } from "../../devnet/sui/chain.ts";
import { SAMPLE } from "../../devnet/sui/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";
import { startSuiEnv } from "./setup.ts";

const body = (address: string) => ({
  stake_account_address: address,
  start_date: "2025-01-01",
  end_date: "2025-01-02",
});

describe("Sui rewards when the node fails", () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("node down: indexed data still answers; a delegator never seen needs the node → 502", async () => {
    const env = await startSuiEnv();
    cleanups.push(async () => {
      await env.jobs.close();
      await env.h.close();
    });
    await env.indexer.syncDelegator(SAMPLE.delegator, null);
    await env.dev.close();
    const post = (address: string) =>
      request(env.h.app).post("/sui/rewards/daily").set("x-api-key", env.key).send(body(address));
    // The sample delegator was synced before the node went down: served from Postgres.
    const known = await post(SAMPLE.delegator);
    assert.equal(known.status, 200, JSON.stringify(known.body));
    const unknown = await post(devnetId("never-seen"));
    assert.equal(unknown.status, 502, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, "UPSTREAM_UNAVAILABLE");
  });

  it("a node that never answers → 504 within the configured timeout", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          silent.closeAllConnections();
          silent.close(() => r());
        }),
    );
    const env = await startSuiEnv();
    cleanups.push(() => env.close());
    const slow = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "sui-rewards",
      SUI_RPC_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/graphql`,
      SUI_TIMEOUT_MS: "300",
      SUI_VALIDATOR_ADDRESSES: `${env.scenario.validators.operator},${env.scenario.validators.sample}`,
    });
    cleanups.push(() => slow.close());
    const slowJobs = await startJobs(slow, [QUEUES.suiDelegators.name]);
    cleanups.push(() => slowJobs.close());
    // Same pools indexed in this database, so only the delegator read reaches the silent node.
    const org = await makeOrganisation(slow.db);
    const start = Date.now();
    const res = await request(slow.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", org.apiKey)
      .send(body(SAMPLE.delegator));
    // Nothing indexed in this database yet: the area says so instead of answering empty rows.
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.code, "NOT_INDEXED_YET");
    assert.equal(res.headers["retry-after"], "30");
    await slow.sql`insert into sui_pools (pool_id, validator_address, exchange_rates_id, activation_epoch, indexed_through_epoch)
      values ('0x01', ${env.scenario.validators.sample}, '0x02', 0, 700)`;
    const timed = await request(slow.app)
      .post("/sui/rewards/daily")
      .set("x-api-key", org.apiKey)
      .send(body(SAMPLE.delegator));
    assert.equal(timed.status, 504, JSON.stringify(timed.body));
    assert.equal(timed.body.code, "UPSTREAM_TIMEOUT");
    assert.ok(Date.now() - start < 5000);
  });
});
