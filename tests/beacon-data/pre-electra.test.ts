import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { backgroundPubkey } from "../../devnet/beacon/chain.ts";
import { type BeaconDevnet, startBeaconDevnet } from "../../devnet/beacon/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";
import { depositQueueReads } from "./fixtures.ts";

/**
 * An index that starts before the Electra fork, as one of mainnet's history does: no pending queue is read
 * for a pre-Electra state (a real node answers 400), blocks before the fork are Deneb's, and each Electra
 * state's deposit queue is read once. The one beacon-data test still on the simplified chain: the consensus
 * devnet starts at Electra (its genesis and block producer are Electra's), so it has no state before the fork.
 */
const S = 4;
const ELECTRA = 2;
let devnet: BeaconDevnet;
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
before(async () => {
  devnet = await startBeaconDevnet({
    execution: true,
    backgroundValidators: 4,
    slotsPerEpoch: S,
    electraForkEpoch: ELECTRA,
  });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution!.url,
    BEACON_INDEXER_START_EPOCH: "0",
    BEACON_INDEXER_MAX_EPOCHS: "100",
  });
  jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
});
after(async () => {
  await jobs?.close();
  await h?.close();
  await devnet?.close();
});

test("a start before the Electra fork is indexed (no pending queues before it), each state's deposit queue read once", async () => {
  const org = await makeOrganisation(h.db);
  const reg = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", org.apiKey)
    .send({ pubkeys: [backgroundPubkey(0), backgroundPubkey(1)] });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const { indexer } = await areaOf(h, "beacon-data");
  // Across the fork in two steps (the second starts from the state the first ended on), then Electra's
  // states only were asked for their queue (the last slots of epochs 2–4), each once.
  for (const [to, epochs] of [
    [3, [0, 1, 2, 3]],
    [4, [4]],
  ] as const) {
    await devnet.advanceToEndOfEpoch(to);
    assert.deepEqual(await indexer.runOnce(), epochs);
  }
  assert.deepEqual(depositQueueReads(devnet.requests), [
    [ELECTRA * S + S - 1, 1],
    [3 * S + S - 1, 1],
    [4 * S + S - 1, 1],
  ]);
  const epochs = await supertest(h.app)
    .get("/api/rewards/epoch")
    .set("api-key", org.apiKey)
    .query({ start_epoch: 0, end_epoch: 4, per_page: 100 });
  assert.equal(epochs.status, 200, JSON.stringify(epochs.body));
  assert.deepEqual(
    epochs.body.interval_summary.map((e: { validators: unknown[] }) => e.validators.length),
    [2, 2, 2, 2, 2],
  );
  // What the node answered for the fork's two sides.
  const block = (slot: number) => fetch(`${devnet.url}/eth/v2/beacon/blocks/${slot}`);
  assert.equal((await block(5)).headers.get("eth-consensus-version"), "deneb");
  assert.equal((await block(ELECTRA * S + S - 1)).headers.get("eth-consensus-version"), "electra");
  const queue = await fetch(`${devnet.url}/eth/v1/beacon/states/${ELECTRA * S - 1}/pending_deposits`);
  assert.equal(queue.status, 400);
});
