import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CachedBeaconStateElectra } from "@lodestar/state-transition";
import { Webhook } from "standardwebhooks";
import supertest from "supertest";
import { type Address, concatHex, type Hex, pad, toHex } from "viem";
import { decryptKeystore } from "../../control-plane/src/features/beacon-provisioning/keystore.ts";
import { createKeystoreExport } from "../../control-plane/src/features/beacon-provisioning/keystore-export.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { WITHDRAWAL_REQUEST_CONTRACT } from "../../devnet/beacon/contracts.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { startWorker, waitForProvision } from "../beacon-provisioning/fixtures.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";
import { type Receiver, startReceiver } from "../helpers/webhook-receiver.ts";
import { indexedRows, transactionsOf } from "./fixtures.ts";

const { SLOTS_PER_EPOCH, startConsensusDevnet } = await loadLodestar();

/**
 * A validator's whole life on real Postgres, Redis, anvil and the consensus devnet (Lodestar's state
 * transition): provision → deposits sent on the EVM (per validator, and batched through the batch
 * depositor) → DEPOSITED → PENDING → ACTIVE → rewards and a proposal (the operator's exported keystores in
 * the devnet's validator client) → EIP-7002 exit → EXITED → WITHDRAWAL_DONE, with a top-up and the sweep's
 * partial withdrawals on the way; then a crash mid-step and a re-org, each compared with a fresh index of
 * the same chain. Each step waits for the chain to reach it: the real rules set when.
 */
const GWEI = 1_000_000_000n;
const S = SLOTS_PER_EPOCH;
const _logger = createLogger({ level: "silent", service: "test" });
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let org: Awaited<ReturnType<typeof makeOrganisation>>;
let other: Awaited<ReturnType<typeof makeOrganisation>>;
let env: Record<string, string>;
let receiver: Receiver;
let webhooks: Awaited<ReturnType<typeof startJobs>>;
const FEE_RECIPIENT = "0x00000000000000000000000000000000000fee01" as Address;
/** The epoch the first test's walk ends in (the validator's withdrawal done). */
let lastEpoch: number;

before(async () => {
  devnet = await startConsensusDevnet({ execution: true, validators: 8, reorgs: true });
  const ex = devnet.execution;
  if (!ex) throw new Error("no execution node");
  env = {
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: ex.url,
    ETH_BATCH_DEPOSITOR: ex.batchDepositor,
    BEACON_INDEXER_START_EPOCH: "0",
    BEACON_INDEXER_MAX_EPOCHS: "100",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
    WEBHOOK_POLL_INTERVAL_MS: "50",
  };
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-provisioning,beacon-data,webhooks",
    ...env,
  });
  org = await makeOrganisation(h.db);
  other = await makeOrganisation(h.db);
  receiver = await startReceiver();
  webhooks = await startJobs(h, ["webhook-delivery"]);
});
after(async () => {
  await webhooks?.close();
  await receiver?.close();
  await h?.close();
  await devnet?.close();
});

const indexer = async (executionUrl = env.ETH_EXECUTION_URL as string) =>
  (await areaOf(h, "beacon-data", { ...h.config, beaconData: { ...h.config.beaconData, executionUrl } }))
    .indexer;

async function send(tx: { to: Address; data: Hex; value: bigint }, from: Address = DEV_ACCOUNTS.user) {
  const ex = devnet.execution!;
  const hash = await ex.wallet.sendTransaction({ chain: null, account: from, ...tx });
  await devnet.advance(1);
  const receipt = await ex.public.getTransactionReceipt({ hash });
  assert.equal(receipt.status, "success", `transaction to ${tx.to} reverted`);
  return receipt;
}

const get = (path: string, key = org.apiKey) => supertest(h.app).get(path).set("api-key", key);
/** The head state's view of `pubkey`'s validator (undefined before its deposit is processed). */
const validator = (pubkey: string) => {
  const i = devnet.indexOf(pubkey);
  return i === undefined ? undefined : devnet.chain.headState().validators.getReadonly(i);
};
const epochOfHead = () => Math.floor(devnet.chain.head / S);
/** Makes slots until `done` holds (at most 40 epochs: a step the chain refused would never come). */
async function advanceUntil(done: () => boolean, what: string) {
  for (let i = 0; !done(); i++) {
    if (i > 40 * S) throw new Error(`the chain never reached: ${what}`);
    await devnet.advance(1);
  }
}

test("provision → deposits on anvil → indexed lifecycle, rewards and transactions", async () => {
  // The organisation's webhook endpoint hears every step (checked at the end).
  const endpoint = await supertest(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: receiver.url, eventTypes: ["provision.completed", "validator.status_changed"] });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.body));
  const worker = await startWorker(h);
  const provision = async (batch: boolean, count: number) => {
    const res = await supertest(h.app)
      .post("/api/provision")
      .set("api-key", org.apiKey)
      .send({
        attributes: {
          withdrawalAddress: DEV_ACCOUNTS.user,
          feeRecipient: FEE_RECIPIENT,
          validatorsCount: count,
          batch,
        },
      });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (await waitForProvision(h.app, org.apiKey, res.body.result.provisionId)).body;
  };
  const single = await provision(false, 1);
  const batch = await provision(true, 2);
  await worker.close();
  // The operator hands the keys to the validator client (`keystores export`), which imports them.
  const exportKeystores = createKeystoreExport({ db: h.db, keyEncryptionKey: h.config.eth.keyEncryptionKey });
  for (const provisionId of [single.provisionId, batch.provisionId]) {
    const exported = await exportKeystores({ provisionId, password: "pw", iterations: 16 });
    assert.equal(exported.outcome, "OK");
    if (exported.outcome !== "OK") return;
    for (const { keystore } of exported.keystores) devnet.importKey(decryptKeystore(keystore, "pw"));
  }
  const v = single.results[0];
  await send({ to: v.to, data: v.depositInput, value: BigInt(v.value) });
  await send({ to: batch.to, data: batch.depositInput, value: BigInt(batch.value) });
  const pubkey: string = v.validatorAddress;
  devnet.setFeeRecipient(pubkey, FEE_RECIPIENT);

  // A deposit whose root is one byte off is refused by the contract.
  const bad = `${v.depositInput.slice(0, -2)}${v.depositInput.slice(-2) === "00" ? "01" : "00"}` as Hex;
  const badHash = await devnet.execution!.wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.user,
    to: v.to,
    data: bad,
    value: BigInt(v.value),
    gas: 500_000n,
  });
  await devnet.advance(1);
  assert.equal((await devnet.execution!.public.getTransactionReceipt({ hash: badHash })).status, "reverted");

  const idx = await indexer();
  await devnet.advanceToEndOfEpoch(1);
  await idx.runOnce();
  let list = await get("/api/validators/list").query({ pubkeys: pubkey });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  assert.deepEqual(
    list.body.results[0].validator.lifecycle.status_history.map((s: { status: string }) => s.status),
    ["CREATED", "DEPOSITED"],
  );
  const txs = await get("/api/transactions");
  assert.equal(txs.body.total, 3, JSON.stringify(txs.body));
  assert.ok(
    txs.body.results.every(
      (t: { type: string; layer: string }) => t.type === "DEPOSIT" && t.layer === "EXECUTION_LAYER",
    ),
  );
  const provisioned = await get("/api/validators").query({ provisionId: batch.provisionId });
  assert.ok(provisioned.body.results.every((r: { status: string }) => r.status === "DEPOSITED"));

  // Active (the deposit waits for finality and the churn, then the activation queue), with a proposal,
  // then a top-up deposit (the same signed deposit again) and the sweep's partials.
  await advanceUntil(() => (validator(pubkey)?.activationEpoch ?? Infinity) <= epochOfHead(), "active");
  const index = devnet.indexOf(pubkey) as number;
  const proposedSlot = await devnet.advanceUntilProposal(index);
  const proposedEpoch = Math.floor(proposedSlot / S);
  await send({ to: v.to, data: v.depositInput, value: BigInt(v.value) });
  // EIP-7002 full exit from the withdrawal address (fee 1 wei with an empty queue), once
  // SHARD_COMMITTEE_PERIOD has passed since the activation and the top-up has been swept.
  const period = devnet.chain.config.SHARD_COMMITTEE_PERIOD;
  const activation = validator(pubkey)!.activationEpoch;
  const key = Buffer.from(pubkey.slice(2), "hex");
  // Electra from genesis (the devnet's default).
  const head = () => devnet.chain.headState() as CachedBeaconStateElectra;
  const topUpPending = () =>
    head()
      .pendingDeposits.getAllReadonly()
      .some((d) => key.equals(d.pubkey));
  await advanceUntil(
    () => epochOfHead() >= activation + period && !topUpPending() && head().balances.get(index) < 33e9,
    "the exit allowed, the top-up applied and its excess swept",
  );
  await send({
    to: WITHDRAWAL_REQUEST_CONTRACT as Address,
    data: concatHex([pubkey as Hex, pad(toHex(0), { size: 8 })]),
    value: 1n,
  });
  // Exited, withdrawable, and swept to zero.
  await advanceUntil(
    () => validator(pubkey)!.withdrawableEpoch <= epochOfHead() && head().balances.get(index) === 0,
    "the validator exited and its balance withdrawn",
  );
  lastEpoch = epochOfHead();
  await devnet.advanceToEndOfEpoch(lastEpoch);
  await idx.runOnce();

  list = await get("/api/validators/list").query({ pubkeys: pubkey });
  const val = list.body.results[0].validator;
  assert.deepEqual(
    val.lifecycle.status_history.map((s: { status: string }) => s.status),
    ["CREATED", "DEPOSITED", "PENDING", "ACTIVE", "EXIT_REQUESTED", "EXIT_SENT", "EXITED", "WITHDRAWAL_DONE"],
  );
  assert.equal(val.beacon_status, "withdrawal_done");
  assert.equal(val.fee_recipient, FEE_RECIPIENT);

  // Webhooks: each provision told once, and each lifecycle step the indexer saw once, in order, signed.
  const steps = [
    "DEPOSITED",
    "PENDING",
    "ACTIVE",
    "EXIT_REQUESTED",
    "EXIT_SENT",
    "EXITED",
    "WITHDRAWAL_DONE",
  ];
  const heard = () =>
    receiver
      .of("validator.status_changed")
      .map((r) => new Webhook(endpoint.body.secret).verify(r.body, r.headers as Record<string, string>))
      .map((e) => (e as { data: { pubkey: string; previousStatus: string; status: string } }).data)
      .filter((d) => d.pubkey === pubkey);
  await eventually(() => heard().length >= steps.length, { what: "every status_changed of the validator" });
  // Deliveries go out concurrently and are retried, so arrival order is not the events' order: each
  // event names the status before it, and that chain is what a receiver orders by.
  assert.deepEqual(
    heard()
      .map((d) => [d.previousStatus, d.status])
      .sort((x, y) => steps.indexOf(x[1] as string) - steps.indexOf(y[1] as string)),
    steps.map((s, i) => [i === 0 ? "CREATED" : steps[i - 1], s]),
  );
  assert.deepEqual(
    receiver
      .of("provision.completed")
      .map((r) => JSON.parse(r.body).data.provisionId)
      .sort(),
    [single.provisionId, batch.provisionId].sort(),
  );

  const rewards = await get("/api/rewards/epoch").query({
    start_epoch: 0,
    end_epoch: lastEpoch,
    per_page: 100,
  });
  assert.equal(rewards.status, 200, JSON.stringify(rewards.body));
  const mine = rewards.body.interval_summary.flatMap(
    (e: { epoch: number; validators: { pubkey: string; cl_reward: string; el_reward: string }[] }) =>
      e.validators.filter((x) => x.pubkey === pubkey).map((x) => ({ ...x, epoch: e.epoch })),
  );
  const cl = mine.map((x: { cl_reward: string }) => BigInt(x.cl_reward));
  assert.ok(
    cl.every((x: bigint) => x > -GWEI / 10n && x < GWEI / 10n),
    `a CL reward outside ±0.1 ETH: ${cl}`,
  );
  // Σ CL rewards = what the validator received − what was put in: withdrawals − deposits (end balance is 0).
  const all = await transactionsOf(h.app, org.apiKey, pubkey);
  const sum = (type: RegExp) =>
    all
      .filter(
        (t: { type: string; layer: string }) =>
          type.test(t.type) && !(t.type === "FULL_WITHDRAWAL" && t.layer === "EXECUTION_LAYER"),
      )
      .reduce((a: bigint, t: { amount: string }) => a + BigInt(t.amount), 0n);
  assert.equal(all.filter((t: { type: string }) => t.type === "DEPOSIT").length, 2);
  assert.ok(
    all.some(
      (t: { type: string; layer: string }) => t.type === "PARTIAL_EXIT" && t.layer === "CONSENSUS_LAYER",
    ),
  );
  assert.ok(
    all.some(
      (t: { type: string; layer: string }) => t.type === "FULL_WITHDRAWAL" && t.layer === "EXECUTION_LAYER",
    ),
  );
  assert.equal(
    cl.reduce((a: bigint, b: bigint) => a + b, 0n),
    sum(/PARTIAL_EXIT|FULL_WITHDRAWAL/) - sum(/DEPOSIT/),
  );
  // The epoch's EL reward = the fee recipient's balance change in each block the validator proposed in it
  // (it may propose more than once an epoch), each truncated to gwei.
  const el = mine.find((x: { epoch: number }) => x.epoch === proposedEpoch);
  const ex = devnet.execution!.public;
  const balanceAt = (blockNumber: number) =>
    ex.getBalance({ address: FEE_RECIPIENT, blockNumber: BigInt(blockNumber) });
  let received = 0n;
  const blocks: {
    slot: number;
    blockNumber: number;
    builder: string | null;
    mevWei: bigint;
    gwei: bigint;
  }[] = [];
  for (const p of devnet.payments!.values()) {
    if (p.pubkey !== pubkey || Math.floor(p.slot / S) !== proposedEpoch) continue;
    const gwei = ((await balanceAt(p.blockNumber)) - (await balanceAt(p.blockNumber - 1))) / GWEI;
    received += gwei;
    blocks.push({ ...p, gwei });
  }
  assert.ok(received > 0n, "the proposal paid the fee recipient");
  if (BigInt(el?.el_reward ?? -1) !== received) {
    // What each block of the proposer held, to tell a devnet's payment out of place from an indexer's miss.
    const held = await Promise.all(
      blocks.map(async (b) => {
        const block = await ex.getBlock({ blockNumber: BigInt(b.blockNumber), includeTransactions: true });
        const receipts = await ex.getBlockReceipts({ blockHash: block.hash });
        const status = (hash: string) =>
          receipts.find((r) => r.transactionHash === hash)?.status ?? "no receipt";
        const txs = block.transactions
          .map((t) => `${t.from}→${t.to} ${t.value} (${status(t.hash)})`)
          .join("; ");
        return `slot ${b.slot} block ${b.blockNumber} (coinbase ${block.miner}, builder ${b.builder}, bid ${b.mevWei} wei, fee recipient +${b.gwei} gwei): ${txs}`;
      }),
    );
    assert.fail(
      `indexed EL reward ${JSON.stringify(el)} against ${received} gwei received:\n${held.join("\n")}`,
    );
  }

  const overview = await get("/api/rewards/overview");
  assert.equal(overview.status, 200, JSON.stringify(overview.body));
  // Minutes of a chain are no 7 days: null, where they once read as an annualised 235,077 %.
  assert.equal(overview.body.apy_7d, null, JSON.stringify(overview.body));
  const date = await get("/api/rewards/date").query({
    start_date: "2025-01-01",
    end_date: "2030-12-31",
    interval: "30d",
    per_page: 100,
  });
  assert.equal(date.status, 200, JSON.stringify(date.body));
  assert.equal(date.body.total_cl_rewards, rewards.body.total_cl_rewards);
  // Another organisation never sees these validators.
  assert.equal((await get("/api/validators/list", other.apiKey)).body.total, 0);
  assert.equal((await get("/api/transactions", other.apiKey)).body.total, 0);
  assert.equal(
    (await get("/api/rewards/epoch", other.apiKey).query({ start_epoch: 0, end_epoch: lastEpoch })).body
      .total_cl_rewards,
    "0",
  );
});

test("a crash mid-step and a re-org both end with exactly the rows of a fresh index", async () => {
  const end = lastEpoch + 4;
  await devnet.advanceToEndOfEpoch(end);
  // Crash: the execution node goes away in the middle of a step (after the beacon reads); nothing is half
  // written and the next step resumes from the cursor.
  await assert.rejects((await indexer("http://127.0.0.1:1")).runOnce());
  await (await indexer()).runOnce();
  const beforeReorg =
    await h.sql`select epoch, validator_index, cl_reward_gwei, el_reward_gwei from beacon_rewards where epoch >= ${end - 1} order by 1, 2`;
  await devnet.reorg(5);
  await devnet.advance(1);
  await (await indexer()).runOnce();
  const afterReorg =
    await h.sql`select epoch, validator_index, cl_reward_gwei, el_reward_gwei from beacon_rewards where epoch >= ${end - 1} order by 1, 2`;
  assert.notDeepEqual(afterReorg, beforeReorg, "the re-org changed the rewards of the replaced epochs");
  const resumed = await indexedRows(h.sql);
  assert.ok(resumed.rewards.length > 0);
  // A fresh index of the same chain, from nothing.
  await h.sql`truncate beacon_rewards, beacon_rewards_daily, beacon_rewards_org_daily, beacon_rewards_network_daily, beacon_transactions, beacon_status_history,
    beacon_validators, beacon_indexed_slots, beacon_indexer_cursor`;
  await (await indexer()).runOnce();
  const fresh = await indexedRows(h.sql);
  assert.deepEqual(resumed.rewards, fresh.rewards);
  assert.deepEqual(resumed.daily, fresh.daily);
  assert.deepEqual(resumed.orgDaily, fresh.orgDaily);
  assert.deepEqual(resumed.networkDaily, fresh.networkDaily);
  // The network rollup is every validator's day once, also after the re-org's subtraction.
  const byDay = await h.sql`select day, sum(cl_reward_gwei)::text as cl, sum(el_reward_gwei)::text as el,
      sum(balance_sum_gwei)::text as balance, sum(epochs)::int as epochs from beacon_rewards_daily group by 1 order by 1`;
  assert.deepEqual(
    resumed.networkDaily.map((r) => [
      r.day,
      String(r.cl_reward_gwei),
      String(r.el_reward_gwei),
      String(r.balance_sum_gwei),
      r.epochs,
    ]),
    byDay.map((r) => [r.day, r.cl, r.el, r.balance, r.epochs]),
  );
  assert.deepEqual(resumed.txs, fresh.txs);
  assert.deepEqual(resumed.history, fresh.history);
  assert.deepEqual(resumed.validators, fresh.validators);
});
