import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type BeaconEnv, depositQueueReads, startBeaconEnv } from "./fixtures.ts";

const { getClient, SLOTS_PER_EPOCH: S } = await loadLodestar();
type ApiClient = import("../beacon-consensus/lodestar.ts").ApiClient;

/**
 * An index that starts before the Electra fork, as one of mainnet's history does: the consensus devnet starts
 * as Deneb and Lodestar's state transition upgrades it at `ELECTRA`. No pending queue is read for a
 * pre-Electra state (the node answers 400, as Lodestar does), blocks before the fork are Deneb's (parsed by
 * `@lodestar/api` as such), each Electra state's deposit queue is read once, and the rewards of the epochs
 * on both sides of the fork are Lodestar's own, exactly what the state transition applied.
 */
const ELECTRA = 2;
let env: BeaconEnv;
let api: ApiClient;
before(async () => {
  env = await startBeaconEnv({
    validators: 8,
    devnet: { electraForkEpoch: ELECTRA },
    env: { BEACON_INDEXER_START_EPOCH: "0", BEACON_INDEXER_MAX_EPOCHS: "100" },
  });
  api = getClient({ baseUrl: env.devnet.url }, { config: env.devnet.chain.config });
});
after(async () => {
  await env?.close();
});

test("a start before the Electra fork is indexed (no pending queues before it), each state's deposit queue read once", async () => {
  const { devnet, h } = env;
  const org = await makeOrganisation(h.db);
  const reg = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", org.apiKey)
    .send({ pubkeys: [devnet.pubkeyOf(0), devnet.pubkeyOf(1)] });
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
});

test("the node answers each side of the fork in its own fork", async () => {
  const { devnet } = env;
  await devnet.advanceToEndOfEpoch(ELECTRA + 2);
  const blockAt = async (slot: number) => {
    const res = await api.beacon.getBlockV2({
      blockId: devnet.chain.latestBlock(slot)?.message.slot ?? slot,
    });
    return { version: res.meta().version, block: res.value() };
  };
  const deneb = await blockAt(ELECTRA * S - 1);
  assert.equal(deneb.version, "deneb");
  assert.ok(!("executionRequests" in deneb.block.message.body), "a Deneb body has no execution requests");
  const attestations = deneb.block.message.body.attestations;
  assert.ok(attestations.length > 0 && attestations.every((a) => !("committeeBits" in a)));
  const electra = await blockAt(ELECTRA * S + S - 1);
  assert.equal(electra.version, "electra");
  assert.ok("executionRequests" in electra.block.message.body);
  const before = await api.beacon.getPendingDeposits({ stateId: ELECTRA * S - 1 });
  assert.equal(before.status, 400);
  const after = await api.beacon.getPendingDeposits({ stateId: ELECTRA * S });
  assert.equal(after.meta().version, "electra");
  assert.deepEqual(after.value(), []);
  // The devnet checks each epoch's reported rewards against the deltas its state transition applied (a
  // difference is an error): every epoch before, at and after the fork answers. Everyone earned but the
  // committees whose attestation no block took: slot 0's (genesis, no block to attest to) and the last Deneb
  // slot's (a Deneb attestation does not fit an Electra block, as on a real chain at the fork).
  const committee = (slot: number) => [
    ...(devnet.chain.stateAt(slot)?.epochCtx.getBeaconCommittee(slot, 0) ?? []),
  ];
  const unincluded = new Map([
    [0, committee(0)],
    [ELECTRA - 1, committee(ELECTRA * S - 1)],
  ]);
  for (let epoch = 0; epoch <= ELECTRA + 1; epoch++) {
    const { totalRewards } = (await api.beacon.getAttestationsRewards({ epoch })).value();
    assert.equal(totalRewards.length, 8, `epoch ${epoch}`);
    const missed = totalRewards.filter((r) => r.source <= 0 || r.target <= 0).map((r) => r.validatorIndex);
    const byIndex = (a: number, b: number) => a - b;
    assert.deepEqual(missed.sort(byIndex), (unincluded.get(epoch) ?? []).sort(byIndex), `epoch ${epoch}`);
  }
  const proposer = (await api.beacon.getBlockRewards({ blockId: deneb.block.message.slot })).value();
  assert.ok(proposer.attestations > 0, JSON.stringify(proposer));
});
