import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { LIFECYCLE } from "../../control-plane/src/features/beacon-data/lifecycle.ts";
import { createBeaconDataRepo } from "../../control-plane/src/features/beacon-data/repo.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import {
  advanceToEndOfEpoch,
  advanceUntil,
  devnetEnv,
  execute,
  nobleVerifiesExit,
  onChain,
  startWorker,
  waitForProvision,
} from "./fixtures.ts";

const { interopSecretKey, SLOTS_PER_EPOCH, ssz, startConsensusDevnet } = await loadLodestar();

/**
 * End to end on real Postgres, Redis, anvil and the consensus devnet (Lodestar's state transition, its exit
 * delays shortened): six validators provisioned and deposited through the batch depositor, walked to active
 * by the real rules (EIP-6110 requests, finality, the churn), then an operator exit through the node's pool,
 * an EIP-7002 full exit and partial withdrawal, an EIP-7251 switch and consolidation, each built by our API
 * and, for the EL ones, signed and mined as the client would; the indexer must then show every step, and
 * every step is a `validator.status_changed` event. Another organisation registers two of the validators:
 * it sees the chain's steps, never the first's own (its exit request, its fee recipient).
 */
const GWEI = 1_000_000_000n;
const USER = DEV_ACCOUNTS.user;
const FEE_RECIPIENT = `0x${"fe".repeat(19)}01`;
let receiver: Receiver;
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let a: TestOrganisation;
let b: TestOrganisation;
/** operator exit, EL full exit, switch, consolidation source (0x01, 32 ETH). */
let legacy: string[];
/** partial withdrawal, consolidation target (0x02, 64 ETH). */
let compounding: string[];

const post = (path: string, body: object, key = a.apiKey) =>
  supertest(h.app).post(path).set("api-key", key).send(body);
const get = (path: string, query: Record<string, unknown>, key = a.apiKey) =>
  supertest(h.app).get(path).set("api-key", key).query(query);

/**
 * Three 0x02 validators of 2048 ETH beside the 16 interop ones, run by the devnet: Electra gives
 * consolidations only the balance churn above the activation churn, none on 512 ETH of stake (both 64 ETH
 * an epoch on the minimal preset), 80 ETH an epoch on these 6,656.
 */
const whales = [16, 17, 18].map((i) => {
  const secretKey = interopSecretKey(i);
  const withdrawalCredentials = new Uint8Array(32).fill(0xb0);
  withdrawalCredentials.set([2, ...new Uint8Array(11)]);
  return { pubkey: secretKey.toPublicKey().toBytes(), withdrawalCredentials, balance: 2048e9, secretKey };
});

before(async () => {
  devnet = await startConsensusDevnet({ execution: true, validators: 16, extraGenesis: whales });
  h = await createControlPlaneHarness({
    ...devnetEnv(devnet),
    CONTROL_PLANE_AREAS: "beacon-provisioning,beacon-data,webhooks",
    // b's registration is backfilled in the pass after it, whatever the number of epochs before it.
    BEACON_BACKFILL_EPOCHS_PER_STEP: "100",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  });
  a = await makeOrganisation(h.db);
  b = await makeOrganisation(h.db);
  // Both organisations hear status changes (the outbox stores an event only for a subscribed endpoint).
  receiver = await startReceiver();
  for (const org of [a, b]) {
    const endpoint = await post(
      "/api/webhooks/endpoints",
      { url: receiver.url, eventTypes: ["validator.status_changed"] },
      org.apiKey,
    );
    assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  }
  const worker = await startWorker(h);
  const provision = async (attributes: object) => {
    const res = await post("/api/provision", { attributes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const done = (await waitForProvision(h.app, a.apiKey, res.body.result.provisionId)).body;
    await execute(devnet, { from: USER, to: done.to, data: done.depositInput, value: done.value });
    return done.results.map((r: { validatorAddress: string }) => r.validatorAddress);
  };
  // a's fee recipient, which the devnet's validator clients do not use (they pay the withdrawal address).
  legacy = await provision({
    withdrawalAddress: USER,
    feeRecipient: FEE_RECIPIENT,
    validatorsCount: 4,
    batch: true,
  });
  compounding = await provision({
    withdrawalAddress: USER,
    validatorsCount: 2,
    batch: true,
    compounding: true,
    amountPerValidator: 64,
  });
  await worker.close();
});
after(async () => {
  await receiver?.close();
  await h?.close();
  await devnet?.close();
});

const history = async (pubkey: string, key = a.apiKey) => {
  const list = await get("/api/validators/list", { pubkeys: pubkey }, key);
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const v = list.body.results[0].validator;
  return { v, statuses: v.lifecycle.status_history.map((s: { status: string }) => s.status) };
};

test("exit, withdrawal requests, switch and consolidation play out on the devnet and in the index", async () => {
  const [operatorExit, elExit, switched, source] = legacy as [string, string, string, string];
  const [partial, target] = compounding as [string, string];
  const { indexer } = await areaOf(h, "beacon-data");
  const status = async (pubkey: string) => (await onChain(devnet, pubkey))?.status;
  const epochOf = (slot: number) => Math.floor(slot / SLOTS_PER_EPOCH);
  // The deposits wait for finality and the churn, then the activation delay: the rules' own pace. The
  // operator's validator is refused while younger than SHARD_COMMITTEE_PERIOD (2 epochs on the devnet).
  await advanceUntil(
    devnet,
    async () => (await status(operatorExit)) === "active_ongoing",
    "the deposits activated",
    24,
  );
  const young = await post("/api/validators/exit", { pubkeys: [operatorExit] });
  assert.equal(young.status, 409, JSON.stringify(young.body));
  assert.equal(young.body.code, "VALIDATOR_NOT_EXITABLE_YET");
  await advanceUntil(
    devnet,
    async () =>
      (await Promise.all([...legacy, ...compounding].map(status))).every((s) => s === "active_ongoing"),
    "every deposit activated",
    4,
  );
  // Every request below needs its validator active for SHARD_COMMITTEE_PERIOD: the next slot is past it.
  await advanceToEndOfEpoch(devnet, epochOf(devnet.chain.head) + 1);
  await indexer.runOnce();
  // Another organisation's validators are not found, whatever the operation.
  const foreign = await post("/api/validators/exit", { pubkeys: [operatorExit] }, b.apiKey);
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.code, "VALIDATOR_NOT_FOUND");
  // b follows two of a's validators (as POST /api/validators/register stores it): before and after their
  // proposals, never with a's fee recipient.
  await createBeaconDataRepo(h.db).register(b.id, [operatorExit, elExit]);
  assert.notEqual((await history(operatorExit, b.apiKey)).v.fee_recipient, FEE_RECIPIENT);

  // 1. The operator's exit: signed with the key it holds, sent to the node's pool, then in the next block.
  const exit = await post("/api/validators/exit", { pubkeys: [operatorExit] });
  assert.equal(exit.status, 200, JSON.stringify(exit.body));
  assert.equal(exit.body.results[0].status, "EXIT_SENT");
  assert.deepEqual((await history(operatorExit)).statuses.slice(-2), ["EXIT_REQUESTED", "EXIT_SENT"]);
  const exits = () => devnet.chain.latestBlock()?.message.body.voluntaryExits ?? [];
  await advanceUntil(devnet, async () => exits().length > 0, "the exit in a block", 1);
  const included = exits().map(
    (x) =>
      ssz.phase0.SignedVoluntaryExit.toJson(x) as {
        message: { epoch: string; validator_index: string };
        signature: string;
      },
  );
  assert.equal(included.length, 1);
  const [signed] = included;
  assert.ok(signed);
  assert.equal(signed.message.validator_index, String(exit.body.results[0].validatorIndex));
  assert.ok(nobleVerifiesExit(signed, operatorExit), "the exit verifies against the Capella domain");
  const again = await post("/api/validators/exit", { pubkeys: [operatorExit] });
  assert.equal(again.status, 409);
  assert.equal(again.body.code, "VALIDATOR_NOT_ACTIVE");

  // 2. EIP-7002 full exit and 3. partial withdrawal of a 0x02 validator, fee read from the contract.
  const fee = await devnet.execution!.public.call({
    to: "0x00000961Ef480Eb55e80D19ad83579A64c007002",
    data: "0x",
  });
  const tooMuch = await post("/api/validators/withdrawal-requests", {
    requests: [{ pubKey: partial, amount: 33 }],
  });
  assert.equal(tooMuch.status, 400, JSON.stringify(tooMuch.body));
  assert.equal(tooMuch.body.code, "PARTIAL_WITHDRAWAL_TOO_LARGE");
  const w = await post("/api/validators/withdrawal-requests", {
    requests: [{ pubKey: elExit }, { pubKey: partial, amount: "10" }],
  });
  assert.equal(w.status, 200, JSON.stringify(w.body));
  assert.deepEqual(
    w.body.results.map((r: { type: string; amount: string; from: string }) => [
      r.type,
      r.amount,
      r.from.toLowerCase(),
    ]),
    [
      ["FULL_WITHDRAWAL", "0", USER.toLowerCase()],
      ["PARTIAL_EXIT", String(10n * GWEI), USER.toLowerCase()],
    ],
  );
  assert.equal(BigInt(w.body.results[0].value), BigInt(fee.data ?? "0x0"));
  for (const tx of w.body.results) await execute(devnet, tx);

  // 4. Switch to compounding, then 5. a consolidation into the 0x02 target.
  const notTarget = await post("/api/validators/consolidations", {
    requests: [{ sourcePubKey: source, targetPubKey: switched }],
  });
  assert.equal(notTarget.status, 400, JSON.stringify(notTarget.body));
  assert.equal(notTarget.body.code, "TARGET_NOT_COMPOUNDING");
  const c = await post("/api/validators/consolidations", {
    requests: [
      { sourcePubKey: switched, targetPubKey: switched },
      { sourcePubKey: source, targetPubKey: target },
    ],
  });
  assert.equal(c.status, 200, JSON.stringify(c.body));
  assert.deepEqual(
    c.body.results.map((r: { type: string }) => r.type),
    ["SWITCH", "CONSOLIDATE"],
  );
  for (const tx of c.body.results) await execute(devnet, tx);

  // Exits and the consolidation take the exit churn, MIN_VALIDATOR_WITHDRAWABILITY_DELAY, then the sweep.
  await advanceUntil(
    devnet,
    async () =>
      (await Promise.all([operatorExit, elExit, source].map(status))).every((s) => s === "withdrawal_done") &&
      BigInt((await onChain(devnet, target))?.balance ?? 0) > 95n * GWEI &&
      BigInt((await onChain(devnet, partial))?.balance ?? 0) < 60n * GWEI,
    "the exits, the partial withdrawal and the consolidation paid",
    16,
  );
  const last = epochOf(devnet.chain.head);
  await advanceToEndOfEpoch(devnet, last);
  // The registrations' backfill a step at a time: passes until one has nothing left to do.
  while ((await indexer.runOnce()).length > 0);

  const operator = await history(operatorExit);
  const times = operator.v.lifecycle.status_history.map((x: { time: string }) => Date.parse(x.time));
  assert.deepEqual(
    times,
    [...times].sort((x, y) => x - y),
    "the history's times never run backwards",
  );
  assert.deepEqual(operator.statuses, [
    "CREATED",
    "DEPOSITED",
    "PENDING",
    "ACTIVE",
    "EXIT_REQUESTED",
    "EXIT_SENT",
    "EXITED",
    "WITHDRAWAL_DONE",
  ]);
  assert.equal(operator.v.beacon_status, "withdrawal_done");
  const el = await history(elExit);
  assert.deepEqual(el.statuses.slice(-4), ["EXIT_REQUESTED", "EXIT_SENT", "EXITED", "WITHDRAWAL_DONE"]);
  const sw = await history(switched);
  assert.equal(sw.v.beacon_status, "active_ongoing");
  assert.ok(sw.v.withdrawal_credentials.startsWith("0x02"), "switched to compounding credentials");
  assert.equal((await history(source)).v.beacon_status, "withdrawal_done");
  const t = await history(target);
  assert.ok(BigInt(t.v.balances.current_staked) > 95n * GWEI, "the target holds both stakes");

  // Every step is an event, a's own exit steps included: each names the step before it, none twice.
  const told = async (org: TestOrganisation, pubkey: string) => {
    const rows = await h.sql<{ data: { pubkey: string; previousStatus: string; status: string } }[]>`
      select data from webhook_events where owner_id = ${org.id} and type = 'validator.status_changed'`;
    return rows
      .map((r) => r.data)
      .filter((d) => d.pubkey === pubkey)
      .map((d) => [d.previousStatus, d.status])
      .sort((x, y) => LIFECYCLE.indexOf(x[1] as never) - LIFECYCLE.indexOf(y[1] as never));
  };
  const chainOf = (steps: string[]) => steps.slice(1).map((s, i) => [steps[i], s]);
  assert.deepEqual(await told(a, operatorExit), chainOf(operator.statuses));
  // b: the chain's steps since it registered (ACTIVE), and no exit request it did not see on the chain.
  const seen = await history(operatorExit, b.apiKey);
  assert.deepEqual(seen.statuses, [
    "DEPOSITED",
    "PENDING",
    "ACTIVE",
    "EXIT_SENT",
    "EXITED",
    "WITHDRAWAL_DONE",
  ]);
  assert.deepEqual(
    await told(b, operatorExit),
    chainOf(["ACTIVE", "EXIT_SENT", "EXITED", "WITHDRAWAL_DONE"]),
  );
  assert.notEqual(seen.v.fee_recipient, FEE_RECIPIENT, "a's fee recipient shown to b");
  assert.equal(operator.v.fee_recipient, FEE_RECIPIENT, "a sees its own fee recipient");
  // An EIP-7002 request is on the chain: both see it.
  const chainExit = ["ACTIVE", "EXIT_REQUESTED", "EXIT_SENT", "EXITED", "WITHDRAWAL_DONE"];
  assert.deepEqual((await history(elExit, b.apiKey)).statuses.slice(-5), chainExit);
  assert.deepEqual(await told(b, elExit), chainOf(chainExit));

  const txs = async (pubkey: string) =>
    (await get("/api/transactions", { pubkeys: pubkey, per_page: 100 })).body.results as {
      type: string;
      layer: string;
      amount: string;
    }[];
  const p = await txs(partial);
  assert.ok(
    p.some(
      (x) => x.type === "PARTIAL_EXIT" && x.layer === "EXECUTION_LAYER" && x.amount === String(10n * GWEI),
    ),
  );
  assert.ok(
    p.some(
      (x) => x.type === "PARTIAL_EXIT" && x.layer === "CONSENSUS_LAYER" && x.amount === String(10n * GWEI),
    ),
  );
  assert.ok((await txs(elExit)).some((x) => x.type === "FULL_WITHDRAWAL" && x.layer === "EXECUTION_LAYER"));
  assert.ok((await txs(switched)).some((x) => x.type === "SWITCH"));
  assert.ok((await txs(source)).some((x) => x.type === "CONSOLIDATE"));

  // Rewards stay right through the exits and withdrawals: no epoch shows the withdrawn balance as a loss,
  // and Σ CL rewards of the exited validator = what it paid out − what was put in.
  const rewards = await get("/api/rewards/epoch", { start_epoch: 0, end_epoch: last, per_page: 100 });
  assert.equal(rewards.status, 200, JSON.stringify(rewards.body));
  const cl = new Map<string, bigint>();
  for (const e of rewards.body.interval_summary) {
    for (const v of e.validators as { pubkey: string; cl_reward: string }[]) {
      const x = BigInt(v.cl_reward);
      assert.ok(x > -GWEI / 10n && x < GWEI / 10n, `epoch ${e.epoch} ${v.pubkey}: CL reward ${x}`);
      cl.set(v.pubkey, (cl.get(v.pubkey) ?? 0n) + x);
    }
  }
  for (const pubkey of [operatorExit, elExit]) {
    const all = await txs(pubkey);
    const paid = all.filter((x) => x.layer === "CONSENSUS_LAYER").reduce((s, x) => s + BigInt(x.amount), 0n);
    const deposited = all.filter((x) => x.type === "DEPOSIT").reduce((s, x) => s + BigInt(x.amount), 0n);
    // Its stake less what it lost offline (the devnet does not hold a deposited validator's key).
    assert.ok(
      paid > 32n * GWEI - GWEI / 10n && paid < 32n * GWEI,
      `${pubkey} was paid out its stake: ${paid}`,
    );
    assert.equal(cl.get(pubkey), paid - deposited);
  }
});
