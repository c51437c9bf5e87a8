import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { loadLodestar } from "./load.ts";
import { reconcile } from "./reconcile.ts";

const { computeSigningRoot, getClient, interopSecretKey, SLOTS_PER_EPOCH, ssz, startConsensusDevnet } =
  await loadLodestar();
type ApiClient = import("./lodestar.ts").ApiClient;

/**
 * The beacon devnet's chain made by Lodestar's state transition (devnet/beacon/consensus), read only through
 * its Beacon API with Lodestar's typed client (`@lodestar/api`: every answer parsed into its SSZ types):
 * 64 validators, 4 of them offline, one slashed through the devnet's admin route, one exited through the
 * voluntary-exit pool. Every validator's balance change over each epoch equals what the devnet's three
 * rewards endpoints say it earned (attestations of two epochs before, sync committee and proposer rewards of
 * the epoch's blocks), with the withdrawals of the epoch's payloads added back and, for the slashed one, the
 * spec's initial slashing penalty.
 */
const OFFLINE = [60, 61, 62, 63];
const SLASHED = 5;
const EXITING = 7;
let devnet: ConsensusDevnet;
let api: ApiClient;

before(async () => {
  devnet = await startConsensusDevnet({ validators: 64, offline: OFFLINE });
  api = getClient({ baseUrl: devnet.url }, { config: devnet.chain.config });
});
after(async () => {
  await devnet?.close();
});

const epochEnd = (epoch: number) => (epoch + 1) * SLOTS_PER_EPOCH - 1;
const advanceTo = async (slot: number) => {
  while (devnet.chain.head < slot) await devnet.advance();
};
const balancesAt = async (slot: number) =>
  new Map(
    (await api.beacon.getStateValidatorBalances({ stateId: slot })).value().map((b) => [b.index, b.balance]),
  );
const statusOf = async (index: number, stateId: number | "head" = "head") =>
  (await api.beacon.getStateValidator({ stateId, validatorId: index })).value();

test("offline validators miss their duties and lose; the others gain; the chain finalizes", async () => {
  const advanced = await fetch(`${devnet.url}/devnet/advance?to_epoch=4`, { method: "POST" });
  assert.equal(advanced.status, 200);
  assert.equal(devnet.chain.head, epochEnd(4));
  const checkpoints = (await api.beacon.getStateFinalityCheckpoints({ stateId: "head" })).value();
  assert.ok(checkpoints.finalized.epoch >= 1, `finalized epoch ${checkpoints.finalized.epoch}`);
  const rewards = (await api.beacon.getAttestationsRewards({ epoch: 1 })).value();
  const byIndex = new Map(rewards.totalRewards.map((r) => [r.validatorIndex, r]));
  for (const i of OFFLINE) {
    const r = byIndex.get(i);
    assert.ok(r && r.source < 0 && r.target < 0 && r.head === 0, `offline ${i}: ${JSON.stringify(r)}`);
  }
  const online = byIndex.get(0);
  assert.ok(online && online.source > 0 && online.target > 0 && online.head > 0, JSON.stringify(online));
  const balances = await balancesAt(devnet.chain.head);
  assert.ok((balances.get(OFFLINE[0] as number) ?? 0) < 32e9);
});

test("an exit posted to the pool is checked by the real rules and walks the validator out", async () => {
  const state = devnet.chain.headState();
  const key = interopSecretKey(EXITING);
  const message = { epoch: Math.floor(state.slot / SLOTS_PER_EPOCH), validatorIndex: EXITING };
  const domain = devnet.chain.config.getDomainForVoluntaryExit(state.slot);
  const signature = key.sign(computeSigningRoot(ssz.phase0.VoluntaryExit, message, domain)).toBytes();
  // Signed by another validator's key: the pool refuses it.
  const forged = interopSecretKey(8).sign(computeSigningRoot(ssz.phase0.VoluntaryExit, message, domain));
  const refused = await api.beacon.submitPoolVoluntaryExit({
    signedVoluntaryExit: { message, signature: forged.toBytes() },
  });
  assert.equal(refused.status, 400);
  (await api.beacon.submitPoolVoluntaryExit({ signedVoluntaryExit: { message, signature } })).assertOk();
  await devnet.advance(2);
  const exiting = await statusOf(EXITING);
  assert.equal(exiting.status, "active_exiting");
  const { exitEpoch, withdrawableEpoch } = exiting.validator;
  await advanceTo(exitEpoch * SLOTS_PER_EPOCH);
  assert.equal((await statusOf(EXITING)).status, "exited_unslashed");
  await advanceTo(withdrawableEpoch * SLOTS_PER_EPOCH + 2 * SLOTS_PER_EPOCH);
  assert.equal((await statusOf(EXITING)).status, "withdrawal_done");
});

test("a slashing triggered on the devnet is included and penalised by the real rules", async () => {
  const res = await fetch(`${devnet.url}/devnet/slash/${SLASHED}`, { method: "POST" });
  assert.equal(res.status, 200);
  await advanceTo(epochEnd(Math.floor(devnet.chain.head / SLOTS_PER_EPOCH) + 1));
  const v = await statusOf(SLASHED);
  assert.equal(v.validator.slashed, true);
  assert.equal(v.status, "active_slashed");
});

test("each validator's balance change equals the rewards endpoints' amounts, withdrawals added back", async () => {
  const first = 2;
  const last = Math.floor((devnet.chain.head + 1) / SLOTS_PER_EPOCH) - 1;
  assert.ok(last - first >= 3, `epochs ${first}..${last}`);
  const { checked, slashings } = await reconcile(api, first, last);
  assert.ok(checked >= 64 * 4);
  assert.equal(slashings, 1, "the slashing's block is among the epochs checked");
});

test("with more than a third offline, finality stops and the inactivity leak charges the offline, to the gwei", async () => {
  const leaving = Array.from({ length: 20 }, (_, i) => 40 + i);
  for (const i of leaving) {
    const res = await fetch(`${devnet.url}/devnet/offline/${i}?offline=true`, { method: "POST" });
    assert.equal(res.status, 200);
  }
  const from = Math.floor(devnet.chain.head / SLOTS_PER_EPOCH) + 1;
  const finalized = devnet.chain.headState().finalizedCheckpoint.epoch;
  await advanceTo(epochEnd(from + 7));
  const stuck = (await api.beacon.getStateFinalityCheckpoints({ stateId: "head" })).value().finalized.epoch;
  assert.ok(stuck <= finalized + 1, `finalized ${finalized} then ${stuck}`);
  const leak = (await api.beacon.getAttestationsRewards({ epoch: from + 5 })).value();
  const byIndex = new Map(leak.totalRewards.map((r) => [r.validatorIndex, r]));
  for (const i of [...OFFLINE, ...leaving]) {
    const r = byIndex.get(i);
    assert.ok(r && r.inactivity < 0 && r.source < 0, `offline ${i} in the leak: ${JSON.stringify(r)}`);
  }
  const online = byIndex.get(0);
  assert.ok(
    online && online.source === 0 && online.inactivity === 0,
    `no rewards in the leak: ${JSON.stringify(online)}`,
  );
  const { checked } = await reconcile(api, from + 1, from + 7);
  assert.ok(checked >= 64 * 7);
});
