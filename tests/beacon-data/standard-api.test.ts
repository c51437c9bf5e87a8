import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type ApiClient, getClient } from "@lodestar/api";
import { createChainForkConfig, defaultChainConfig } from "@lodestar/config";
import { backgroundPubkey } from "../../devnet/beacon/chain.ts";
import { type BeaconDevnet, startBeaconDevnet } from "../../devnet/beacon/server.ts";

/**
 * The simulated beacon node speaks the standard (issue 23 item 6): Lodestar's own typed client
 * (`@lodestar/api`, which parses every answer into its SSZ types) reads every endpoint the indexer and the
 * registration call (`control-plane/src/features/beacon-data/client.ts`), with real execution payloads.
 */
const ELECTRA = 2;
let devnet: BeaconDevnet;
let api: ApiClient;
before(async () => {
  devnet = await startBeaconDevnet({
    execution: true,
    backgroundValidators: 4,
    slotsPerEpoch: 4,
    electraForkEpoch: ELECTRA,
  });
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
  await devnet.advanceToEndOfEpoch(ELECTRA + 1);
});
after(() => devnet?.close());

const last = (epoch: number) => epoch * 4 + 3;

test("genesis, spec and headers parse", async () => {
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

test("v2 blocks: every Electra body field and the Eth-Consensus-Version header, Deneb before the fork", async () => {
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

test("validators: POST by pubkey, GET one, and the status filters", async () => {
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

test("pending deposits and consolidations carry their version; 400 before Electra", async () => {
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

test("state ids: justified and finalized exist; an invalid one is 400, an unknown slot 404", async () => {
  for (const stateId of ["justified", "finalized", "genesis", "head"]) {
    const res = await api.beacon.getStateFinalityCheckpoints({ stateId });
    assert.equal(res.status, 200, stateId);
  }
  assert.equal((await api.beacon.getStateFinalityCheckpoints({ stateId: "nonsense" })).status, 400);
  assert.equal((await api.beacon.getStateFinalityCheckpoints({ stateId: "99999" })).status, 404);
  assert.equal((await api.beacon.getBlockHeader({ blockId: "nonsense" })).status, 400);
});
