import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { compactDecrypt, exportJWK, generateKeyPair } from "jose";
import supertest from "supertest";
import { type Address, type Hex, toHex } from "viem";
import { createBeaconDataRepo } from "../../control-plane/src/features/beacon-data/repo.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { devnetEnv, startWorker, waitForProvision } from "../beacon-provisioning/fixtures.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { loadLodestar } from "./load.ts";

const { computeActivationExitEpoch, SLOTS_PER_EPOCH, startConsensusDevnet } = await loadLodestar();

/**
 * A validator's whole life by the real rules: the platform provisions it, its deposit goes through anvil's
 * deposit contract into the Lodestar devnet as an EIP-6110 request, and the state transition walks it
 * pending → active; a pre-signed exit from our exits area, posted to the devnet's pool, is refused while the
 * validator is younger than SHARD_COMMITTEE_PERIOD and accepted after it, and the validator walks
 * active_exiting → exited_unslashed → withdrawal_possible → withdrawal_done. The indexer reads every epoch;
 * our API must show each status as the chain reaches it, with the epoch the state gives. A genesis validator
 * the organisation registered is slashed at the start and walks the slashed branch. The devnet's config
 * shortens SHARD_COMMITTEE_PERIOD and MIN_VALIDATOR_WITHDRAWABILITY_DELAY to 2 epochs (config.ts).
 */
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let org: TestOrganisation;
let pubkey: string;
let provisionId: string;
/** A genesis validator the organisation registered, slashed at the start: the slashed branch. */
const SLASHED_INDEX = 3;
let slashed: string;

before(async () => {
  // 16 genesis validators: a quarter of the signatures a slot, the same rules (the sweep passes sooner too).
  devnet = await startConsensusDevnet({ execution: true, validators: 16 });
  const ex = devnet.execution;
  if (!ex) throw new Error("no execution node");
  h = await createControlPlaneHarness({
    ...devnetEnv(devnet),
    BEACON_INDEXER_MAX_EPOCHS: "1",
    CONTROL_PLANE_AREAS: "beacon-provisioning,beacon-data",
  });
  org = await makeOrganisation(h.db);
  slashed = toHex(devnet.chain.headState().validators.getReadonly(SLASHED_INDEX).pubkey);
  await createBeaconDataRepo(h.db).register(org.id, [slashed]);
  const worker = await startWorker(h);
  const res = await post("/api/provision", {
    attributes: { withdrawalAddress: DEV_ACCOUNTS.user, validatorsCount: 1, batch: false },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const done = (await waitForProvision(h.app, org.apiKey, res.body.result.provisionId)).body;
  await worker.close();
  const v = done.results[0];
  pubkey = v.validatorAddress;
  provisionId = done.provisionId;
  const hash = await ex.wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.user,
    to: v.to as Address,
    data: v.depositInput as Hex,
    value: BigInt(v.value),
  });
  // The next slot's payload is the anvil block that mines it.
  while (!(await ex.public.getTransactionReceipt({ hash }).catch(() => null))) await devnet.advance(1);
});
after(async () => {
  await h?.close();
  await devnet?.close();
});

const post = (path: string, body: object) =>
  supertest(h.app).post(path).set("api-key", org.apiKey).send(body);
const get = (path: string, query: object) =>
  supertest(h.app).get(path).set("api-key", org.apiKey).query(query);

type Step = { status: string; epoch: number | null };
/** What our validators list says of a validator (the provisioned one by default). */
async function listed(of = pubkey) {
  const res = await get("/api/validators/list", { pubkeys: of });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const v = res.body.results[0].validator;
  return {
    status: v.beacon_status as string | null,
    index: v.index as number | null,
    history: v.lifecycle.beacon_status_history as Step[],
    lifecycle: v.lifecycle.status_history.map((s: { status: string }) => s.status) as string[],
  };
}

/**
 * Each beacon status our API showed, with the first indexed epoch it showed it after: the indexer reads
 * one epoch a run (BEACON_INDEXER_MAX_EPOCHS 1), and the list is read after each.
 */
const seen: { status: string; epoch: number }[] = [];
const seenSlashed: typeof seen = [];
const indexedThrough = async () =>
  Number((await h.sql`select epoch from beacon_indexer_cursor`)[0]?.epoch ?? -1);
async function walkUntil(status: string, maxEpochs = 30) {
  const { indexer } = await areaOf(h, "beacon-data");
  for (let i = 0; i < maxEpochs; i++) {
    const epoch = (await indexedThrough()) + 1;
    // The indexer reads an epoch once the chain is past it: slots are made until it has.
    while (devnet.chain.head < (epoch + 1) * SLOTS_PER_EPOCH - 1) await devnet.advance(1);
    await indexer.runOnce();
    for (let slots = 0; (await indexedThrough()) < epoch; slots++) {
      assert.ok(slots < 4 * SLOTS_PER_EPOCH, `the indexer did not read epoch ${epoch}`);
      await devnet.advance(1);
      await indexer.runOnce();
    }
    const now = await listed();
    if (now.status && now.status !== seen.at(-1)?.status) seen.push({ status: now.status, epoch });
    const other = (await listed(slashed)).status;
    if (other && other !== seenSlashed.at(-1)?.status) seenSlashed.push({ status: other, epoch });
    if (now.status === status) return now;
  }
  assert.fail(`${status} not reached within ${maxEpochs} epochs; seen ${JSON.stringify(seen)}`);
}

const stateValidator = (index: number) => devnet.chain.headState().validators.getReadonly(index);

test("a provisioned validator walks every status on the devnet's schedule, each with its epoch in our API", async (t) => {
  devnet.chain.slash(SLASHED_INDEX);
  await walkUntil("active_ongoing");
  const { index } = await listed();
  assert.ok(index !== null);
  const at = stateValidator(index);
  assert.ok(at.activationEpoch > at.activationEligibilityEpoch);

  // The exits area's pre-signed exit, decrypted as the client would and posted to the devnet's pool.
  const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
  const handout = await post("/api/validators/exit-messages", {
    pubkeys: [pubkey],
    recipientKey: await exportJWK(publicKey),
  });
  assert.equal(handout.status, 200, JSON.stringify(handout.body));
  const { plaintext } = await compactDecrypt(handout.body.encryptedExits, privateKey);
  const [{ signedVoluntaryExit }] = JSON.parse(new TextDecoder().decode(plaintext)).exits;
  const toPool = (exit: unknown) =>
    supertest(devnet.url)
      .post("/eth/v1/beacon/pool/voluntary_exits")
      .send(exit as object);
  // The real rules refuse it while the validator is younger than SHARD_COMMITTEE_PERIOD, and a forged one.
  const young = await toPool(signedVoluntaryExit);
  assert.equal(young.status, 400, young.text);
  assert.match(young.text, /shortTimeActive|short/i);
  const period = devnet.chain.config.SHARD_COMMITTEE_PERIOD;
  while (devnet.chain.head < (at.activationEpoch + period) * SLOTS_PER_EPOCH) await devnet.advance(1);
  const other = { ...signedVoluntaryExit, message: { ...signedVoluntaryExit.message, validator_index: "1" } };
  assert.equal((await toPool(other)).status, 400, "an exit signed for another validator is refused");
  const accepted = await toPool(signedVoluntaryExit);
  assert.equal(accepted.status, 200, accepted.text);
  // The next block carries it; a slot of our validator itself stays empty (the devnet holds no key of it).
  do await devnet.advance(1);
  while (!devnet.chain.blockAt(devnet.chain.head));
  const block = devnet.chain.blockAt(devnet.chain.head);
  assert.deepEqual(
    block?.message.body.voluntaryExits.map((e) => e.message.validatorIndex),
    [index],
    "the next block carries the exit",
  );
  const includedEpoch = Math.floor(block.message.slot / SLOTS_PER_EPOCH);

  await walkUntil("withdrawal_done", 40);
  const end = stateValidator(index);
  // The schedule the config gives: exit at the first epoch an exit may take effect (empty churn), then
  // withdrawable MIN_VALIDATOR_WITHDRAWABILITY_DELAY epochs later.
  assert.equal(end.exitEpoch, computeActivationExitEpoch(includedEpoch));
  assert.equal(
    end.withdrawableEpoch,
    end.exitEpoch + devnet.chain.config.MIN_VALIDATOR_WITHDRAWABILITY_DELAY,
  );
  assert.equal(devnet.chain.headState().balances.get(index), 0);

  const firstSeen = (s: string) => seen.find((x) => x.status === s)?.epoch ?? null;
  const now = await listed();
  assert.deepEqual(now.history, [
    { status: "pending_initialized", epoch: firstSeen("pending_initialized") },
    { status: "pending_queued", epoch: end.activationEligibilityEpoch },
    { status: "active_ongoing", epoch: end.activationEpoch },
    { status: "active_exiting", epoch: firstSeen("active_exiting") },
    { status: "exited_unslashed", epoch: end.exitEpoch },
    { status: "withdrawal_possible", epoch: end.withdrawableEpoch },
    { status: "withdrawal_done", epoch: firstSeen("withdrawal_done") },
  ]);
  // The walk as our API showed it epoch by epoch: in order, each status no earlier than the state says
  // it happened, and those lasting an epoch or more each seen.
  const order = now.history.map((s) => s.status);
  assert.deepEqual(
    seen.map((s) => s.status),
    order.filter((s) => seen.some((x) => x.status === s)),
  );
  for (const s of [
    "pending_queued",
    "active_ongoing",
    "active_exiting",
    "exited_unslashed",
    "withdrawal_done",
  ])
    assert.ok(firstSeen(s) !== null, `${s} seen in our API; seen ${JSON.stringify(seen)}`);
  for (const s of now.history)
    if (s.epoch !== null && firstSeen(s.status) !== null)
      assert.ok(s.epoch <= (firstSeen(s.status) as number));
  assert.equal(firstSeen("active_exiting"), includedEpoch);
  assert.deepEqual(now.lifecycle.slice(-2), ["EXITED", "WITHDRAWAL_DONE"]);

  // The slashed validator took the slashed branch: exited at its exit epoch, not withdrawable before
  // EPOCHS_PER_SLASHINGS_VECTOR epochs have passed.
  const s = stateValidator(SLASHED_INDEX);
  assert.ok(s.slashed);
  const bySlashed = await listed(slashed);
  assert.equal(bySlashed.status, "exited_slashed");
  assert.deepEqual(bySlashed.history, [
    { status: "pending_initialized", epoch: null },
    { status: "pending_queued", epoch: s.activationEligibilityEpoch },
    { status: "active_ongoing", epoch: s.activationEpoch },
    { status: "active_slashed", epoch: seenSlashed.find((x) => x.status === "active_slashed")?.epoch },
    { status: "exited_slashed", epoch: s.exitEpoch },
  ]);
  assert.deepEqual(
    seenSlashed.map((x) => x.status),
    ["active_slashed", "exited_slashed"],
  );
  assert.equal(seenSlashed[1]?.epoch, s.exitEpoch);
  assert.ok(s.withdrawableEpoch > (await indexedThrough()));

  t.diagnostic(`slashed validator seen: ${JSON.stringify(seenSlashed)}`);
  t.diagnostic(`walk seen in our API (status, first epoch): ${JSON.stringify(seen)}`);
  t.diagnostic(`beacon_status_history: ${JSON.stringify(now.history)}`);
  // The exits area's list shows the same.
  const mine = await get("/api/validators", { provisionId });
  assert.equal(mine.status, 200, JSON.stringify(mine.body));
  const item = mine.body.results.find((r: { validatorAddress: string }) => r.validatorAddress === pubkey);
  assert.equal(item.beaconStatus, "withdrawal_done");
  assert.deepEqual(item.beaconStatusHistory, now.history);
});
