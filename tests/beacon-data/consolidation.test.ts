import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { CachedBeaconStateElectra } from "@lodestar/state-transition";
import supertest from "supertest";
import { type Address, concatHex, type Hex } from "viem";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { CONSOLIDATION_REQUEST_CONTRACT } from "../../devnet/beacon/contracts.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";
import { transactionsOf } from "./fixtures.ts";

const { SLOTS_PER_EPOCH, startConsensusDevnet } = await loadLodestar();

/**
 * EIP-7251 on real anvil and the consensus devnet (Lodestar's state transition): the target switches to
 * compounding credentials, then the source consolidates into it. The state transition moves the source's
 * effective balance (32 ETH) to the target at the epoch transition where the source becomes withdrawable;
 * the indexer must count that as neither a reward of the target nor a loss of the source. Three compounding
 * genesis validators of 2,048 ETH make the stake large enough for a consolidation churn (the balance churn
 * above the activation-exit churn must exceed 32 ETH, else Electra ignores the request).
 */
const GWEI = 1_000_000_000n;
const S = SLOTS_PER_EPOCH;
const [SOURCE_INDEX, TARGET_INDEX] = [0, 1];
const WHALES = [2, 3, 4];
const address = DEV_ACCOUNTS.user.slice(2).toLowerCase();
const credentials = (prefix: number) =>
  Uint8Array.from(Buffer.from(`0${prefix}${"00".repeat(11)}${address}`, "hex"));
let SOURCE: string;
let TARGET: string;
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let key: string;

let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
before(async () => {
  devnet = await startConsensusDevnet({
    execution: true,
    validators: 8,
    withdrawalCredentials: (i) => credentials(WHALES.includes(i) ? 2 : 1),
    genesisBalance: (i) => (WHALES.includes(i) ? 2048 : 32) * 1e9,
  });
  [SOURCE, TARGET] = [devnet.pubkeyOf(SOURCE_INDEX), devnet.pubkeyOf(TARGET_INDEX)];
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution!.url,
    BEACON_INDEXER_START_EPOCH: "1",
    BEACON_INDEXER_MAX_EPOCHS: "100",
  });
  key = (await makeOrganisation(h.db)).apiKey;
  // The worker's roll-up of registrations (POST /api/validators/register waits for it).
  jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
});
after(async () => {
  await jobs?.close();
  await h?.close();
  await devnet?.close();
});

const get = (path: string, query: Record<string, unknown> = {}) =>
  supertest(h.app).get(path).set("api-key", key).query(query);

/** An EIP-7251 request (source = target: switch to compounding) from the withdrawal address, fee 1 wei. */
async function request(source: string, target: string) {
  const ex = devnet.execution!;
  const hash = await ex.wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.user,
    to: CONSOLIDATION_REQUEST_CONTRACT as Address,
    data: concatHex([source as Hex, target as Hex]),
    value: 1n,
  });
  await devnet.advance(1);
  assert.equal((await ex.public.getTransactionReceipt({ hash })).status, "success");
}

test("a consolidation moves 32 ETH to the target without counting it as a reward or a loss", async () => {
  const reg = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", key)
    .send({ pubkeys: [SOURCE, TARGET] });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const { indexer } = await areaOf(h, "beacon-data");
  await devnet.advanceToEndOfEpoch(2);
  await indexer.runOnce();
  await request(TARGET, TARGET);
  await request(SOURCE, TARGET);
  // Until the source's stake has moved and the sweep has paid out what was left of it.
  // Electra from genesis (the devnet's default).
  const head = () => devnet.chain.headState() as CachedBeaconStateElectra;
  const credentialsPrefix = (i: number) => head().validators.getReadonly(i).withdrawalCredentials[0];
  assert.equal(credentialsPrefix(TARGET_INDEX), 2, "the target switched to compounding");
  assert.equal(head().pendingConsolidations.length, 1, "the consolidation was accepted");
  for (let i = 0; head().pendingConsolidations.length > 0 || head().balances.get(SOURCE_INDEX) > 0; i++) {
    if (i > 20 * S) throw new Error("the consolidation never completed");
    await devnet.advance(1);
  }
  const last = Math.floor(devnet.chain.head / S) + 1;
  await devnet.advanceToEndOfEpoch(last);
  await indexer.runOnce();

  const list = await get("/api/validators/list", { pubkeys: `${SOURCE},${TARGET}` });
  const state = new Map(
    list.body.results.map((r: { validator: { pubkey: string } }) => [r.validator.pubkey, r.validator]),
  ) as Map<string, { beacon_status: string; balances: { current_staked: string } }>;
  // The consolidation happened: the target holds both stakes, the source is exited and swept.
  assert.ok(BigInt(state.get(TARGET)?.balances.current_staked ?? 0) > 64n * GWEI);
  assert.equal(state.get(SOURCE)?.beacon_status, "withdrawal_done");
  assert.ok((await transactionsOf(h.app, key, SOURCE)).some((t) => t.type === "CONSOLIDATE"));

  const rewards = await get("/api/rewards/epoch", { start_epoch: 1, end_epoch: last, per_page: 100 });
  assert.equal(rewards.status, 200, JSON.stringify(rewards.body));
  const cl = new Map<string, bigint>();
  for (const e of rewards.body.interval_summary) {
    for (const v of e.validators as { pubkey: string; cl_reward: string }[]) {
      const x = BigInt(v.cl_reward);
      assert.ok(x > -GWEI / 10n && x < GWEI / 10n, `epoch ${e.epoch} ${v.pubkey}: CL reward ${x}`);
      cl.set(v.pubkey, (cl.get(v.pubkey) ?? 0n) + x);
    }
  }
  // Σ CL rewards of the pair = their balance change + what the sweep paid them (the move is internal).
  // The balances at the end of epoch 0, which epoch 1's rewards start from.
  const endOf0 = devnet.chain.stateAt(S - 1)!;
  const start = [SOURCE_INDEX, TARGET_INDEX].map((i) => BigInt(endOf0.balances.get(i)));
  const paid = async (pubkey: string) =>
    (await transactionsOf(h.app, key, pubkey))
      .filter((t) => t.layer === "CONSENSUS_LAYER")
      .reduce((a, t) => a + BigInt(t.amount), 0n);
  // What the chain's blocks paid the pair in the epochs summed (the indexer's record is checked against it).
  let swept = 0n;
  for (let slot = S; slot < (last + 1) * S; slot++) {
    for (const w of devnet.chain.blockAt(slot)?.message.body.executionPayload.withdrawals ?? [])
      if (w.validatorIndex === SOURCE_INDEX || w.validatorIndex === TARGET_INDEX) swept += BigInt(w.amount);
  }
  assert.equal((await paid(SOURCE)) + (await paid(TARGET)), swept);
  const end = [...state.values()].reduce((a, v) => a + BigInt(v.balances.current_staked), 0n);
  assert.equal(
    (cl.get(SOURCE) ?? 0n) + (cl.get(TARGET) ?? 0n),
    end - start.reduce((a, b) => a + b, 0n) + swept,
  );
});
