import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiClient, getClient } from "@lodestar/api";
import { createChainForkConfig, defaultChainConfig } from "@lodestar/config";
import supertest from "supertest";
import { backgroundPubkey, type ElPayment } from "../../devnet/beacon/chain.ts";
import type { BeaconDevnet } from "../../devnet/beacon/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { notBrokenDown } from "../helpers/cl-breakdown.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { startBeaconEnv } from "./fixtures.ts";

/**
 * What real chains and nodes do, on one devnet (Electra at epoch 2, 4 slots an epoch) and one index, tests
 * in order: execution-layer rewards on a chain of builder (MEV-boost) and local blocks, checked against the
 * devnet's own record of what each proposer was paid; the behaviours of real
 * nodes (item 7): a start before the Electra fork, optimistic answers, one read of each state's deposit
 * queue; and the devnet speaking the standard (item 6): Lodestar's own typed client (`@lodestar/api`,
 * which parses every answer into its SSZ types) reads every endpoint the indexer and the registration call
 * (`control-plane/src/features/beacon-data/client.ts`), real execution payloads included.
 */
const S = 4;
const ELECTRA = 2;
const GWEI = 1_000_000_000n;
const [V0, V1, V2, V3] = [0, 1, 2, 3].map(backgroundPubkey) as [string, string, string, string];
let devnet: BeaconDevnet;
let h: ControlPlaneHarness;
let env: Awaited<ReturnType<typeof startBeaconEnv>> | undefined;
let indexer: Awaited<ReturnType<typeof areaOf<"beacon-data">>>["indexer"];
let orgA: Awaited<ReturnType<typeof makeOrganisation>>;
let api: ApiClient;
before(async () => {
  env = await startBeaconEnv({
    backgroundValidators: 4,
    electraForkEpoch: ELECTRA,
    env: {
      BEACON_INDEXER_START_EPOCH: "0",
      BEACON_INDEXER_MAX_EPOCHS: "100",
      BEACON_BACKFILL_EPOCHS_PER_STEP: "100",
    },
  });
  ({ devnet, h } = env);
  // One indexer for the whole file: its state cache lives as long as the worker's does.
  indexer = (await areaOf(h, "beacon-data")).indexer;
  orgA = await makeOrganisation(h.db);
  // Lodestar's fork schedule as the devnet's: everything up to Deneb at genesis, Electra at epoch 2.
  const config = createChainForkConfig({
    ...defaultChainConfig,
    ALTAIR_FORK_EPOCH: 0,
    BELLATRIX_FORK_EPOCH: 0,
    CAPELLA_FORK_EPOCH: 0,
    DENEB_FORK_EPOCH: 0,
    ELECTRA_FORK_EPOCH: ELECTRA,
    FULU_FORK_EPOCH: Number.POSITIVE_INFINITY,
    GLOAS_FORK_EPOCH: Number.POSITIVE_INFINITY,
  });
  api = getClient({ baseUrl: devnet.url }, { config });
});
after(() => env?.close());

async function register(key: string, pubkeys: string[]) {
  const res = await supertest(h.app).post("/api/validators/register").set("api-key", key).send({ pubkeys });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}
const get = (key: string, path: string, query: Record<string, unknown> = {}) =>
  supertest(h.app).get(path).set("api-key", key).query(query);

interface Reward {
  pubkey: string;
  cl_reward: string;
  cl_breakdown: Record<string, string>;
  el_reward: string;
  mev_reward: string;
  priority_fees: string;
}
async function epochRewards(key: string, from: number, to: number) {
  const res = await get(key, "/api/rewards/epoch", { start_epoch: from, end_epoch: to, per_page: 100 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as {
    total_cl_rewards: string;
    total_cl_breakdown: Record<string, string>;
    total_el_rewards: string;
    total_mev_rewards: string;
    total_priority_fees: string;
    interval_summary: { epoch: number; validators: Reward[] }[];
  };
}
/** The devnet's record of what `pubkeys` were paid in epochs [from, to], in Gwei (truncated per block). */
function paid(pubkeys: string[], from: number, to: number) {
  const rows = devnet.chain
    .elPayments()
    .filter((p) => pubkeys.includes(p.pubkey) && p.slot >= from * S && p.slot < (to + 1) * S);
  const mev = rows.reduce((a, p) => a + p.mevWei / GWEI, 0n);
  const fees = rows.reduce((a, p) => a + p.priorityFeeWei / GWEI, 0n);
  return { rows, mev, fees };
}
const latestPayment = (pubkey: string, toEpoch: number): ElPayment | undefined =>
  devnet.chain
    .elPayments()
    .filter((p) => p.pubkey === pubkey && p.slot < (toEpoch + 1) * S)
    .at(-1);

test("a start before the Electra fork is indexed (no pending queues before it), each state's deposit queue read once", async () => {
  await devnet.advanceToEndOfEpoch(1);
  // Epoch 2 (the first Electra epoch): V0 proposes a builder block, then a local one; V3 (not yet
  // tracked) a builder block; V1 a local one.
  await devnet.advance(1, { proposer: V0, builder: true });
  await devnet.advance(1, { proposer: V0, builder: false });
  await devnet.advance(1, { proposer: V3, builder: true });
  await devnet.advance(1, { proposer: V1, builder: false });
  // Tracked from the index's first epoch on (the indexer has not run yet).
  await register(orgA.apiKey, [V0, V1, V2]);
  await devnet.advanceToEndOfEpoch(4);
  // Two steps: the second starts from the state the first ended on.
  assert.deepEqual(await indexer.runOnce(), [0, 1, 2, 3, 4]);
  await devnet.advanceToEndOfEpoch(6);
  assert.deepEqual(await indexer.runOnce(), [5, 6]);
  const queueReads = [...devnet.requests.entries()].filter(([p]) =>
    /\/states\/\d+\/pending_deposits$/.test(p),
  );
  // Electra's states only (the last slots of epochs 2–6), each once.
  assert.deepEqual(
    queueReads.map(([p, n]) => [Number(/states\/(\d+)/.exec(p)?.[1]), n]).sort((a, b) => a[0]! - b[0]!),
    [2, 3, 4, 5, 6].map((e) => [e * S + S - 1, 1]),
  );
});

test("EL rewards: Σ over epochs equals what the devnet's builders and fees paid; a builder and a local block apart", async () => {
  const body = await epochRewards(orgA.apiKey, 0, 6);
  const expected = paid([V0, V1, V2], 0, 6);
  assert.ok(
    expected.rows.some((p) => p.builder) && expected.rows.some((p) => !p.builder),
    "both kinds of block",
  );
  assert.ok(expected.mev > 0n);
  assert.equal(BigInt(body.total_el_rewards), expected.mev + expected.fees);
  assert.equal(BigInt(body.total_mev_rewards), expected.mev);
  assert.equal(BigInt(body.total_priority_fees), expected.fees);
  // Per validator and epoch too: each row's parts and their sum.
  for (const { epoch, validators } of body.interval_summary) {
    for (const v of validators) {
      const mine = paid([v.pubkey], epoch, epoch);
      assert.deepEqual(
        [v.mev_reward, v.priority_fees, v.el_reward],
        [String(mine.mev), String(mine.fees), String(mine.mev + mine.fees)],
        `${v.pubkey.slice(0, 10)} epoch ${epoch}`,
      );
    }
  }
  // Epoch 2: V0's builder block paid it the builder's bid, its local block the priority fees.
  const [builderBlock, localBlock] = devnet.chain.elPayments().filter((p) => p.slot === 8 || p.slot === 9);
  assert.ok(builderBlock?.builder && builderBlock.mevWei > 0n && builderBlock.priorityFeeWei === 0n);
  assert.ok(localBlock && !localBlock.builder && localBlock.priorityFeeWei > 0n);
  const v0 = body.interval_summary[2]?.validators.find((v) => v.pubkey === V0);
  assert.equal(v0?.mev_reward, String(builderBlock.mevWei / GWEI));
  assert.equal(v0?.priority_fees, String(localBlock.priorityFeeWei / GWEI));
  // The date endpoint and the overview carry the same sums.
  const overview = await get(orgA.apiKey, "/api/rewards/overview");
  assert.equal(BigInt(overview.body.total_mev_rewards), expected.mev);
  assert.equal(BigInt(overview.body.total_priority_fees), expected.fees);
});

test("a node without the rewards endpoints: each CL reward is indexed whole, as not broken down", async () => {
  // The simplified devnet answers 404 to them: asked, and gone without.
  assert.ok([...devnet.requests.keys()].some((p) => p.startsWith("/eth/v1/beacon/rewards/")));
  const body = await epochRewards(orgA.apiKey, 0, 6);
  const rows = body.interval_summary.flatMap((s) => s.validators);
  assert.ok(rows.length > 0);
  for (const r of rows) assert.deepEqual(r.cl_breakdown, notBrokenDown(r.cl_reward), JSON.stringify(r));
  assert.deepEqual(body.total_cl_breakdown, notBrokenDown(body.total_cl_rewards));
  const overview = await get(orgA.apiKey, "/api/rewards/overview");
  assert.deepEqual(overview.body.total_cl_breakdown, notBrokenDown(overview.body.total_cl_rewards));
});

test("fee_recipient is the address paid, not the builder's; a pubkey that proposed only in backfilled epochs has it too", async () => {
  const list = await get(orgA.apiKey, "/api/validators/list");
  for (const { validator } of list.body.results as {
    validator: { pubkey: string; fee_recipient: string };
  }[]) {
    const last = latestPayment(validator.pubkey, 6);
    if (!last) continue;
    assert.equal(validator.fee_recipient, last.feeRecipient, validator.pubkey);
    assert.ok(!devnet.chain.elPayments().some((p) => p.builder === validator.fee_recipient));
  }
  // V3 proposed in epoch 2 (and maybe later, up to 6); registered now, every later slot someone else's.
  const orgB = await makeOrganisation(h.db);
  await register(orgB.apiKey, [V3]);
  for (let i = 0; i < 2 * S; i++) await devnet.advance(1, { proposer: i % 2 ? V1 : V2 });
  assert.deepEqual(await indexer.runOnce(), [7, 8]);
  const [v3] = (await get(orgB.apiKey, "/api/validators/list")).body.results;
  const last = latestPayment(V3, 6);
  assert.ok(last, "V3 proposed in the backfilled epochs");
  assert.equal(v3.validator.fee_recipient, last.feeRecipient);
  // Its backfilled EL rewards are what it was paid.
  const rewards = await epochRewards(orgB.apiKey, 0, 8);
  const expected = paid([V3], 0, 8);
  assert.equal(BigInt(rewards.total_mev_rewards), expected.mev);
  assert.equal(BigInt(rewards.total_priority_fees), expected.fees);
});

test("answers marked execution_optimistic are not indexed, and their finality is not taken", async () => {
  const cursor = async () => (await h.sql`select epoch, finalized_epoch from beacon_indexer_cursor`)[0];
  const before = await cursor();
  devnet.setOptimistic(true);
  await devnet.advanceToEndOfEpoch(11);
  assert.deepEqual(await indexer.runOnce(), []);
  assert.deepEqual(await cursor(), before);
  assert.equal((await h.sql`select count(*)::int as n from beacon_rewards where epoch > 8`)[0]?.n, 0);
  devnet.setOptimistic(false);
  assert.deepEqual(await indexer.runOnce(), [9, 10, 11]);
  assert.equal((await cursor())?.finalized_epoch, devnet.chain.finalizedEpoch());
});

test("the backfill reaches down to the index's first epoch even when no pubkey was tracked from it", async () => {
  // A fresh index of the same chain from epoch 13, with nobody tracked until epoch 16.
  await h.sql`truncate beacon_rewards, beacon_rewards_daily, beacon_rewards_org_daily, beacon_rewards_network_daily, beacon_transactions,
    beacon_status_history, beacon_validators, beacon_indexed_slots, beacon_indexer_cursor, beacon_tracked_validators`;
  const { indexer: fresh } = await areaOf(h, "beacon-data", {
    ...h.config,
    beaconData: { ...h.config.beaconData, startEpoch: 13 },
  });
  await devnet.advanceToEndOfEpoch(15);
  assert.deepEqual(await fresh.runOnce(), [13, 14, 15]);
  const orgC = await makeOrganisation(h.db);
  await register(orgC.apiKey, [V2]);
  await devnet.advanceToEndOfEpoch(16);
  assert.deepEqual(await fresh.runOnce(), [16]);
  const rows = await h.sql`select epoch from beacon_rewards where validator_index = 2 order by epoch`;
  assert.deepEqual(
    rows.map((r) => r.epoch),
    [13, 14, 15, 16],
  );
});

// The standard's shapes, on the chain the tests above produced.
const last = (epoch: number) => epoch * S + S - 1;

test("standard API: genesis, spec and headers parse", async () => {
  const genesis = (await api.beacon.getGenesis()).value();
  assert.equal(genesis.genesisTime, devnet.chain.slotTime(0));
  const spec = (await api.config.getSpec()).value();
  assert.equal(spec.SLOTS_PER_EPOCH, "4");
  assert.equal(spec.ELECTRA_FORK_EPOCH, String(ELECTRA));
  const head = (await api.beacon.getBlockHeader({ blockId: "head" })).value();
  assert.equal(head.header.message.slot, devnet.chain.head);
  const bySlot = (await api.beacon.getBlockHeader({ blockId: 5 })).value();
  assert.equal(bySlot.header.message.slot, 5);
  const checkpoints = (await api.beacon.getStateFinalityCheckpoints({ stateId: "head" })).value();
  assert.equal(checkpoints.finalized.epoch, devnet.chain.finalizedEpoch());
});

test("standard API: v2 blocks: every Electra body field and the Eth-Consensus-Version header, Deneb before the fork", async () => {
  const electra = await api.beacon.getBlockV2({ blockId: last(ELECTRA) });
  assert.equal(electra.meta().version, "electra");
  const block = electra.value();
  const payload = (
    block.message.body as { executionPayload: { blockNumber: number; feeRecipient: Uint8Array } }
  ).executionPayload;
  const el = await devnet.execution!.public.getBlock({ blockNumber: BigInt(payload.blockNumber) });
  assert.equal(Buffer.from(payload.feeRecipient).toString("hex"), el.miner.slice(2).toLowerCase());
  assert.ok("executionRequests" in block.message.body);
  const deneb = await api.beacon.getBlockV2({ blockId: 5 });
  assert.equal(deneb.meta().version, "deneb");
  assert.ok(!("executionRequests" in deneb.value().message.body));
});

test("standard API: validators: POST by pubkey, GET one, and the status filters", async () => {
  const ids = [backgroundPubkey(0), backgroundPubkey(1)];
  for (const stateId of [last(ELECTRA), "head", "genesis"] as const) {
    const list = (await api.beacon.postStateValidators({ stateId, validatorIds: ids })).value();
    assert.equal(list.length, 2, String(stateId));
  }
  const one = (
    await api.beacon.getStateValidator({ stateId: "head", validatorId: ids[0] as string })
  ).value();
  assert.equal(one.status, "active_ongoing");
  for (const [status, n] of [
    ["active", 4],
    ["active_ongoing", 4],
    ["pending", 0],
    ["exited", 0],
    ["withdrawal", 0],
  ] as const) {
    const found = (
      await api.beacon.postStateValidators({ stateId: "head", statuses: [status as "active_ongoing"] })
    ).value();
    assert.equal(found.length, n, status);
  }
});

test("standard API: pending deposits and consolidations carry their version; 400 before Electra", async () => {
  // A top-up waiting in the head state's queue, so the list has an entry to parse.
  devnet.addPendingDeposit(backgroundPubkey(1), 1_000_000_000n);
  const deposits = await api.beacon.getPendingDeposits({ stateId: "head" });
  assert.equal(deposits.meta().version, "electra");
  const [deposit] = deposits.value();
  assert.equal(deposit?.amount, 1_000_000_000);
  assert.equal(Buffer.from(deposit?.pubkey ?? []).toString("hex"), backgroundPubkey(1).slice(2));
  const consolidations = await api.beacon.getPendingConsolidations({ stateId: last(ELECTRA) });
  assert.equal(consolidations.meta().version, "electra");
  const before = await api.beacon.getPendingDeposits({ stateId: last(ELECTRA - 1) });
  assert.equal(before.status, 400);
});

test("standard API: state ids: justified and finalized exist; an invalid one is 400, an unknown slot 404", async () => {
  for (const stateId of ["justified", "finalized", "genesis", "head"]) {
    const res = await api.beacon.getStateFinalityCheckpoints({ stateId });
    assert.equal(res.status, 200, stateId);
  }
  assert.equal((await api.beacon.getStateFinalityCheckpoints({ stateId: "nonsense" })).status, 400);
  assert.equal((await api.beacon.getStateFinalityCheckpoints({ stateId: "99999" })).status, 404);
  assert.equal((await api.beacon.getBlockHeader({ blockId: "nonsense" })).status, 400);
});
