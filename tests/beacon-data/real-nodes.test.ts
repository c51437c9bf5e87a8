import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import type { ElPayment } from "../../devnet/beacon/payments.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { CL_BREAKDOWN_FIELDS } from "../helpers/cl-breakdown.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type BeaconEnv, depositQueueReads, startBeaconEnv } from "./fixtures.ts";

const { depositCall, getClient, interopSecretKey, SLOTS_PER_EPOCH } = await loadLodestar();

/**
 * What real chains and nodes do, on one consensus devnet (Lodestar's state transition, 4 genesis
 * validators, 8 slots an epoch) and one index, tests in order: execution-layer rewards on a chain of
 * builder (MEV-boost) and local blocks, checked against the devnet's own record of what each proposer was
 * paid; the behaviours of real nodes: optimistic answers, one read of each state's deposit queue, the
 * rewards endpoints read; and the devnet speaking the standard: Lodestar's own typed client
 * (`@lodestar/api`, which parses every answer into its SSZ types) reads every endpoint the indexer and the
 * registration call (`control-plane/src/features/beacon-data/client.ts`), real execution payloads
 * included. Proposers come by the chain's shuffling; a block is a builder one only when a test asks.
 */
const S = SLOTS_PER_EPOCH;
const GWEI = 1_000_000_000n;
let V0: string;
let V1: string;
let V2: string;
let V3: string;
let devnet: BeaconEnv["devnet"];
let h: ControlPlaneHarness;
let env: BeaconEnv | undefined;
let indexer: Awaited<ReturnType<typeof areaOf<"beacon-data">>>["indexer"];
let orgA: Awaited<ReturnType<typeof makeOrganisation>>;
let api: ReturnType<typeof getClient>;
before(async () => {
  env = await startBeaconEnv({
    validators: 4,
    devnet: { builderShare: 0 },
    env: {
      BEACON_INDEXER_START_EPOCH: "0",
      BEACON_INDEXER_MAX_EPOCHS: "100",
      BEACON_BACKFILL_EPOCHS_PER_STEP: "100",
    },
  });
  ({ devnet, h } = env);
  [V0, V1, V2, V3] = [0, 1, 2, 3].map(devnet.pubkeyOf) as [string, string, string, string];
  // One indexer for the whole file: its state cache lives as long as the worker's does.
  indexer = (await areaOf(h, "beacon-data")).indexer;
  orgA = await makeOrganisation(h.db);
  api = getClient({ baseUrl: devnet.url }, { config: devnet.chain.config });
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
  const rows = [...devnet.payments!.values()].filter(
    (p) => pubkeys.includes(p.pubkey) && p.slot >= from * S && p.slot < (to + 1) * S,
  );
  const mev = rows.reduce((a, p) => a + p.mevWei / GWEI, 0n);
  const fees = rows.reduce((a, p) => a + p.priorityFeeWei / GWEI, 0n);
  return { rows, mev, fees };
}
const latestPayment = (pubkey: string, toEpoch: number): ElPayment | undefined =>
  [...devnet.payments!.values()]
    .filter((p) => p.pubkey === pubkey && p.slot < (toEpoch + 1) * S)
    .sort((a, b) => a.slot - b.slot)
    .at(-1);
/** The slots of V0's builder block and of its local block (the first test makes them). */
let builderSlot: number;
const last = (epoch: number) => epoch * S + S - 1;
/** Epochs `from` to `to`, both in. */
const epochs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** The last epoch the first test indexes (6 unless the proposals it waits for came late). */
let E = 6;
let localSlot: number;

test("each state's deposit queue is read once, however many epochs read it", async () => {
  await devnet.advanceToEndOfEpoch(1);
  // V0 proposes a builder block, then a local one; V3 (not yet tracked) a builder block; V1 a local one.
  builderSlot = await devnet.advanceUntilProposal(0, { builder: true });
  localSlot = await devnet.advanceUntilProposal(0, { builder: false });
  await devnet.advanceUntilProposal(3, { builder: true });
  await devnet.advanceUntilProposal(1, { builder: false });
  // Tracked from the index's first epoch on (the indexer has not run yet).
  await register(orgA.apiKey, [V0, V1, V2]);
  // The proposals come by the shuffling (genesis differs each run): the epochs read follow them.
  const first = Math.max(4, Math.floor(devnet.chain.head / S) + 1);
  E = first + 2;
  await devnet.advanceToEndOfEpoch(first);
  // Two steps: the second starts from the state the first ended on.
  assert.deepEqual(await indexer.runOnce(), epochs(0, first));
  await devnet.advanceToEndOfEpoch(E);
  assert.deepEqual(await indexer.runOnce(), [first + 1, E]);
  // The last slots of epochs 0–E, each once.
  assert.deepEqual(
    depositQueueReads(devnet.requests),
    epochs(0, E).map((e) => [last(e), 1]),
  );
});

test("EL rewards: Σ over epochs equals what the devnet's builders and fees paid; a builder and a local block apart", async () => {
  const body = await epochRewards(orgA.apiKey, 0, E);
  const expected = paid([V0, V1, V2], 0, E);
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
  // V0's builder block paid it the builder's bid (its only one: every other block is local), its local
  // block the priority fees.
  const [builderBlock, localBlock] = [devnet.payments!.get(builderSlot), devnet.payments!.get(localSlot)];
  assert.ok(builderBlock?.builder && builderBlock.mevWei > 0n && builderBlock.priorityFeeWei === 0n);
  assert.ok(localBlock && !localBlock.builder && localBlock.priorityFeeWei > 0n);
  const epochOf = (slot: number) => Math.floor(slot / S);
  const v0 = body.interval_summary[epochOf(builderSlot)]?.validators.find((v) => v.pubkey === V0);
  assert.equal(v0?.mev_reward, String(builderBlock.mevWei / GWEI));
  const v0Local = body.interval_summary[epochOf(localSlot)]?.validators.find((v) => v.pubkey === V0);
  assert.ok(BigInt(v0Local?.priority_fees ?? 0) >= localBlock.priorityFeeWei / GWEI);
  // The date endpoint and the overview carry the same sums.
  const overview = await get(orgA.apiKey, "/api/rewards/overview");
  assert.equal(BigInt(overview.body.total_mev_rewards), expected.mev);
  assert.equal(BigInt(overview.body.total_priority_fees), expected.fees);
});

test("the node's rewards endpoints break each CL reward down, to the gwei", async () => {
  assert.ok([...devnet.requests.keys()].some((p) => p.startsWith("/eth/v1/beacon/rewards/attestations/")));
  const body = await epochRewards(orgA.apiKey, 0, E);
  const rows = body.interval_summary.flatMap((s) => s.validators);
  assert.ok(rows.length > 0);
  const sum = (b: Record<string, string>) =>
    CL_BREAKDOWN_FIELDS.reduce((a, f) => a + BigInt(b[f] ?? "x"), 0n);
  for (const r of rows) {
    assert.equal(sum(r.cl_breakdown), BigInt(r.cl_reward), JSON.stringify(r));
    assert.equal(r.cl_breakdown.unexplained, "0", JSON.stringify(r));
    assert.equal(r.cl_breakdown.not_broken_down, "0", JSON.stringify(r));
  }
  assert.equal(sum(body.total_cl_breakdown), BigInt(body.total_cl_rewards));
  const overview = await get(orgA.apiKey, "/api/rewards/overview");
  assert.equal(sum(overview.body.total_cl_breakdown), BigInt(overview.body.total_cl_rewards));
});

test("fee_recipient is the address paid, not the builder's; a pubkey that proposed only in backfilled epochs has it too", async () => {
  const list = await get(orgA.apiKey, "/api/validators/list");
  for (const { validator } of list.body.results as {
    validator: { pubkey: string; fee_recipient: string };
  }[]) {
    const last = latestPayment(validator.pubkey, E);
    if (!last) continue;
    assert.equal(validator.fee_recipient, last.feeRecipient, validator.pubkey);
    assert.ok(![...devnet.payments!.values()].some((p) => p.builder === validator.fee_recipient));
  }
  // V3 proposed (in the first test, and maybe later up to epoch E); registered now, and offline for the
  // next two epochs, so its every later slot is empty.
  const orgB = await makeOrganisation(h.db);
  await register(orgB.apiKey, [V3]);
  devnet.chain.setOffline(3, true);
  await devnet.advanceToEndOfEpoch(E + 2);
  devnet.chain.setOffline(3, false);
  // A block after epoch 8 (its last slot may be V3's, empty): the node's head is past the epoch.
  await devnet.advance(1);
  assert.deepEqual(await indexer.runOnce(), [E + 1, E + 2]);
  const [v3] = (await get(orgB.apiKey, "/api/validators/list")).body.results;
  const last = latestPayment(V3, E);
  assert.ok(last, "V3 proposed in the backfilled epochs");
  assert.equal(v3.validator.fee_recipient, last.feeRecipient);
  // Its backfilled EL rewards are what it was paid.
  const rewards = await epochRewards(orgB.apiKey, 0, E + 2);
  const expected = paid([V3], 0, E + 2);
  assert.equal(BigInt(rewards.total_mev_rewards), expected.mev);
  assert.equal(BigInt(rewards.total_priority_fees), expected.fees);
});

test("answers marked execution_optimistic are not indexed, and their finality is not taken", async () => {
  const cursor = async () => (await h.sql`select epoch, finalized_epoch from beacon_indexer_cursor`)[0];
  const before = await cursor();
  devnet.setOptimistic(true);
  await devnet.advanceToEndOfEpoch(E + 4);
  assert.deepEqual(await indexer.runOnce(), []);
  assert.deepEqual(await cursor(), before);
  assert.equal((await h.sql`select count(*)::int as n from beacon_rewards where epoch > ${E + 2}`)[0]?.n, 0);
  devnet.setOptimistic(false);
  assert.deepEqual(await indexer.runOnce(), [E + 3, E + 4]);
  assert.equal((await cursor())?.finalized_epoch, devnet.finalizedEpoch());
});

test("the backfill reaches down to the index's first epoch even when no pubkey was tracked from it", async () => {
  // A fresh index of the same chain from epoch E + 5, with nobody tracked until epoch E + 7.
  await h.sql`truncate beacon_rewards, beacon_rewards_daily, beacon_rewards_org_daily, beacon_rewards_network_daily, beacon_transactions,
    beacon_status_history, beacon_validators, beacon_indexed_slots, beacon_indexer_cursor, beacon_tracked_validators`;
  const { indexer: fresh } = await areaOf(h, "beacon-data", {
    ...h.config,
    beaconData: { ...h.config.beaconData, startEpoch: E + 5 },
  });
  await devnet.advanceToEndOfEpoch(E + 6);
  assert.deepEqual(await fresh.runOnce(), [E + 5, E + 6]);
  const orgC = await makeOrganisation(h.db);
  await register(orgC.apiKey, [V2]);
  await devnet.advanceToEndOfEpoch(E + 7);
  assert.deepEqual(await fresh.runOnce(), [E + 7]);
  const rows = await h.sql`select epoch from beacon_rewards where validator_index = 2 order by epoch`;
  assert.deepEqual(
    rows.map((r) => r.epoch),
    epochs(E + 5, E + 7),
  );
});

// The standard's shapes, on the chain the tests above produced.

test("standard API: genesis, spec and headers parse", async () => {
  const genesis = (await api.beacon.getGenesis()).value();
  assert.equal(genesis.genesisTime, devnet.slotTime(0));
  const spec = (await api.config.getSpec()).value();
  assert.equal(spec.SLOTS_PER_EPOCH, String(S));
  assert.equal(spec.ELECTRA_FORK_EPOCH, "0");
  const head = (await api.beacon.getBlockHeader({ blockId: "head" })).value();
  assert.equal(head.header.message.slot, devnet.chain.head);
  const bySlot = (await api.beacon.getBlockHeader({ blockId: 5 })).value();
  assert.equal(bySlot.header.message.slot, 5);
  const checkpoints = (await api.beacon.getStateFinalityCheckpoints({ stateId: "head" })).value();
  assert.equal(checkpoints.finalized.epoch, devnet.finalizedEpoch());
});

test("standard API: v2 blocks: every Electra body field and the Eth-Consensus-Version header", async () => {
  const electra = await api.beacon.getBlockV2({ blockId: builderSlot });
  assert.equal(electra.meta().version, "electra");
  const block = electra.value();
  const payload = (
    block.message.body as { executionPayload: { blockNumber: number; feeRecipient: Uint8Array } }
  ).executionPayload;
  const el = await devnet.execution!.public.getBlock({ blockNumber: BigInt(payload.blockNumber) });
  assert.equal(Buffer.from(payload.feeRecipient).toString("hex"), el.miner.slice(2).toLowerCase());
  assert.ok("executionRequests" in block.message.body);
});

test("standard API: validators: POST by pubkey, GET one, and the status filters", async () => {
  const ids = [V0, V1];
  for (const stateId of [last(2), "head", "genesis"] as const) {
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

test("standard API: pending deposits and consolidations carry their version", async () => {
  // A top-up through the deposit contract, waiting in the head state's queue: the list has an entry.
  const ex = devnet.execution!;
  const credentials = devnet.chain.headState().validators.getReadonly(1).withdrawalCredentials;
  const call = depositCall(interopSecretKey(1), credentials, 1_000_000_000, devnet.chain.config);
  const hash = await ex.wallet.sendTransaction({ chain: null, account: DEV_ACCOUNTS.user, ...call });
  // The next slot's payload is the anvil block that mines it (an offline proposer's slot has none).
  while (!(await ex.public.getTransactionReceipt({ hash }).catch(() => null))) await devnet.advance(1);
  const deposits = await api.beacon.getPendingDeposits({ stateId: "head" });
  assert.equal(deposits.meta().version, "electra");
  const [deposit] = deposits.value();
  assert.equal(deposit?.amount, 1_000_000_000);
  assert.equal(Buffer.from(deposit?.pubkey ?? []).toString("hex"), V1.slice(2));
  const consolidations = await api.beacon.getPendingConsolidations({ stateId: last(2) });
  assert.equal(consolidations.meta().version, "electra");
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
