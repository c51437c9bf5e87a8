import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { reindexArea } from "../../control-plane/src/platform/chain-identity/guard.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { chainCommands } from "../../scripts/operator/chain.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { indexedRows } from "../beacon-data/fixtures.ts";
import { advanceToEndOfEpoch, onChain } from "../beacon-provisioning/fixtures.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";
import { operatorContext } from "../helpers/operator.ts";

const { SLOTS_PER_EPOCH: S, startConsensusDevnet } = await loadLodestar();

// The beacon devnet restarted on the same ports is what `npm start` again does: a new chain (genesis now)
// behind the same URL, on the database of the old one (docs/architecture.md §13, "Chain identity"). One
// consensus devnet at a time in a process: the old one is closed before the new one starts.
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let apiKey: string;
let closeJobs: () => Promise<unknown>;
const ports = { beacon: 0, execution: 0 };

async function startDevnet() {
  devnet = await startConsensusDevnet({
    execution: true,
    validators: 16,
    ...(ports.beacon ? { port: ports.beacon, executionPort: ports.execution } : {}),
  });
  ports.beacon = Number(new URL(devnet.url).port);
  ports.execution = Number(new URL(devnet.execution!.url).port);
}

/** The devnet stopped and started again on the same ports: a chain with a later genesis. */
async function restartDevnet() {
  const genesis = (await (await fetch(`${devnet.url}/eth/v1/beacon/genesis`)).json()) as {
    data: { genesis_time: string };
  };
  await devnet.close();
  await eventually(async () => Math.floor(Date.now() / 1000) > Number(genesis.data.genesis_time), {
    what: "a later second than the old genesis",
  });
  await startDevnet();
}

const epochs = (start: number, end: number) =>
  supertest(h.app)
    .get("/api/rewards/epoch")
    .set("api-key", apiKey)
    .query({ start_epoch: start, end_epoch: end, per_page: 50 });
const headEpoch = async () => {
  const head = (await (await fetch(`${devnet.url}/eth/v1/beacon/headers/head`)).json()) as {
    data: { header: { message: { slot: string } } };
  };
  return Math.floor(Number(head.data.header.message.slot) / S);
};
const indexer = async (policy: "refuse" | "reindex" = "refuse") =>
  (await areaOf(h, "beacon-data", { ...h.config, chainResetPolicy: policy })).indexer;

/** What the area holds, re-indexed from nothing on the node it serves now: equal means the numbers are the node's. */
async function assertFreshIndexEquals() {
  const held = await indexedRows(h.sql);
  await reindexArea(h.db, "beacon-data");
  await (await indexer()).runOnce();
  assert.deepEqual(await indexedRows(h.sql), held, "a fresh index of the node's chain holds other rows");
}

before(async () => {
  await startDevnet();
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution!.url,
    BEACON_INDEXER_START_EPOCH: "0",
  });
  const jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
  closeJobs = () => jobs.close();
  const org = await makeOrganisation(h.db);
  apiKey = org.apiKey;
  const reg = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", apiKey)
    .send({ pubkeys: [(await onChain(devnet, "0"))?.validator.pubkey] });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
});
after(async () => {
  await closeJobs?.();
  await h?.close();
  await devnet?.close();
});

test("a switched beacon node: 503 CHAIN_MISMATCH naming both chains, nothing written, then `chain reindex` and the new chain's numbers", async () => {
  await advanceToEndOfEpoch(devnet, 3);
  await (await indexer()).runOnce();
  assert.equal((await epochs(0, 3)).status, 200);
  const [recorded] = await h.sql`select identity from chain_identities where area = 'beacon-data'`;
  const old = recorded?.identity as { genesis_time: string };

  await restartDevnet();
  // The API looks at the node itself: no stale numbers even before the worker's next pass.
  const refused = await eventually(
    async () => {
      const res = await epochs(0, 3);
      return res.status === 503 && res.body;
    },
    { what: "503 from the API on the switched node" },
  );
  const body = JSON.stringify(refused);
  assert.match(body, /CHAIN_MISMATCH/, body);
  assert.match(body, new RegExp(`genesis_time=${old.genesis_time}`), body);

  const before = await indexedRows(h.sql);
  assert.deepEqual(await (await indexer()).runOnce(), [], "a pass on another chain writes nothing");
  assert.deepEqual(await indexedRows(h.sql), before);
  const [row] = await h.sql`select node_identity from chain_identities where area = 'beacon-data'`;
  assert.notEqual(row?.node_identity?.genesis_time, old.genesis_time);
  for (const path of [
    "/api/validators/list",
    "/api/rewards/overview",
    "/api/transactions",
    "/api/rates?from=2026-01-01&to=2026-01-02",
    "/api/network/ethereum",
  ]) {
    const res = await supertest(h.app).get(path).set("api-key", apiKey);
    assert.equal(res.status, 503, `${path}: ${JSON.stringify(res.body)}`);
    assert.match(JSON.stringify(res.body), /CHAIN_MISMATCH/);
  }

  const ctx = operatorContext({ db: h.db, redis: h.redis, keys: {} as never });
  const command = chainCommands["chain reindex"]!;
  const dry = await command.run(ctx, { positionals: ["beacon-data"], flags: { "dry-run": true } });
  assert.match(dry.text, /^would delete beacon-data .*beacon_rewards [1-9]/, dry.text);
  assert.deepEqual(await indexedRows(h.sql), before, "a dry run deletes nothing");
  await command.run(ctx, { positionals: ["beacon-data"], flags: {} });
  const [kept] = await h.sql`select count(*)::int as n from beacon_tracked_validators`;
  assert.equal(kept?.n, 1, "the organisation's registration stays");

  await advanceToEndOfEpoch(devnet, 2);
  assert.deepEqual(await (await indexer()).runOnce(), [0, 1, 2]);
  const res = await epochs(0, 2);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  // The new chain's numbers, epoch by epoch (a sum may be negative: a validator whose committee was the
  // genesis slot's is penalised for that attestation).
  assert.deepEqual(
    res.body.interval_summary.map((e: { epoch: number }) => e.epoch),
    [0, 1, 2],
  );
  assert.notEqual(BigInt(res.body.total_cl_rewards), 0n, JSON.stringify(res.body));
  await assertFreshIndexEquals();
});

test("CHAIN_RESET_POLICY=reindex (npm start): the next pass re-indexes by itself and never claims an epoch past the node's head", async () => {
  await advanceToEndOfEpoch(devnet, 5);
  await (await indexer()).runOnce();
  assert.equal((await epochs(0, 5)).status, 200);

  await restartDevnet();
  await advanceToEndOfEpoch(devnet, 1);
  await (await indexer("reindex")).runOnce();
  const [cursor] = await h.sql`select epoch from beacon_indexer_cursor`;
  assert.ok(cursor && cursor.epoch <= (await headEpoch()), `cursor ${cursor?.epoch} past the node's head`);
  const past = await epochs(0, 5);
  assert.equal(past.status, 503, JSON.stringify(past.body));
  assert.match(JSON.stringify(past.body), /NOT_INDEXED_YET/);
  assert.equal((await epochs(0, 1)).status, 200);
  await assertFreshIndexEquals();
});
