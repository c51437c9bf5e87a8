import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { loadLodestar } from "./load.ts";
import { reconcile } from "./reconcile.ts";

const { getClient, SLOTS_PER_EPOCH, startConsensusDevnet } = await loadLodestar();
type ApiClient = import("./lodestar.ts").ApiClient;

/**
 * The consensus devnet started as Deneb (`electraForkEpoch`), read through `@lodestar/api`: 64 validators
 * (two committees a slot), 4 offline. Deneb blocks carry one attestation per committee with its index in
 * the data; Lodestar's `processSlots` upgrades the state at the fork, after which blocks are Electra's; and
 * every validator's balance change over the epochs across the fork equals what the rewards endpoints say.
 */
const ELECTRA = 2;
const OFFLINE = [60, 61, 62, 63];
let devnet: ConsensusDevnet;
let api: ApiClient;

before(async () => {
  devnet = await startConsensusDevnet({ validators: 64, offline: OFFLINE, electraForkEpoch: ELECTRA });
  api = getClient({ baseUrl: devnet.url }, { config: devnet.chain.config });
  await devnet.advanceToEndOfEpoch(ELECTRA + 3);
});
after(async () => {
  await devnet?.close();
});

/** The fork and attestations of the blocks of `epoch`. */
async function blocksOf(epoch: number) {
  const found = [];
  for (let slot = epoch * SLOTS_PER_EPOCH; slot < (epoch + 1) * SLOTS_PER_EPOCH; slot++) {
    const res = await api.beacon.getBlockV2({ blockId: slot });
    if (res.status === 404) continue;
    found.push({ version: res.meta().version, attestations: res.value().message.body.attestations });
  }
  return found;
}

test("Deneb blocks before the fork (one attestation per committee), Electra's from it", async () => {
  const deneb = await blocksOf(ELECTRA - 1);
  assert.ok(deneb.length > 0 && deneb.every((b) => b.version === "deneb"));
  const atts = deneb.flatMap((b) => b.attestations);
  assert.ok(atts.every((a) => !("committeeBits" in a)));
  assert.deepEqual([...new Set(atts.map((a) => a.data.index))].sort(), [0, 1], "both committees' indices");
  const electra = await blocksOf(ELECTRA);
  assert.ok(electra.length > 0 && electra.every((b) => b.version === "electra"));
  const aggregates = electra.flatMap((b) => b.attestations);
  assert.ok(aggregates.every((a) => "committeeBits" in a && a.data.index === 0));
  const fork = (await api.beacon.getStateFork({ stateId: ELECTRA * SLOTS_PER_EPOCH })).value();
  assert.deepEqual(
    [fork.previousVersion, fork.currentVersion, fork.epoch],
    [devnet.chain.config.DENEB_FORK_VERSION, devnet.chain.config.ELECTRA_FORK_VERSION, ELECTRA],
  );
});

test("each validator's balance change across the fork equals the rewards endpoints' amounts", async () => {
  // Epoch 2 is paid epoch 0's attestations (Deneb) at the upgrade; epoch 3 epoch 1's by Electra's processing.
  const { checked } = await reconcile(api, ELECTRA, ELECTRA + 3);
  assert.equal(checked, 64 * 4);
});
