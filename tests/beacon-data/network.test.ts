import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { type Address, concatHex, type Hex, numberToHex } from "viem";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import {
  CONSOLIDATION_REQUEST_CONTRACT,
  WITHDRAWAL_REQUEST_CONTRACT,
} from "../../devnet/beacon/contracts.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

const { depositCall, interopSecretKey, startConsensusDevnet } = await loadLodestar();

/**
 * GET /api/network/ethereum recomputed here from the node's raw answers (the Beacon API's validators, pending
 * deposits and pending partial withdrawals of the head state, its spec) with the Electra functions written
 * out as the consensus specs do, and the EIP-7002/7251 fees read twice from anvil: the contracts' fee getter
 * (eth_call, empty calldata) and the EIPs' formula over the excess in the contracts' storage slot 0. The
 * chain is the consensus devnet's (Lodestar's state transition): the queues are filled by real requests, the
 * exits and the partial withdrawal through the EIP-7002 contract, the deposits through the deposit contract.
 */
const GWEI = 1_000_000_000n;
const FAR_FUTURE = 2n ** 64n - 1n;
const address = DEV_ACCOUNTS.user.slice(2).toLowerCase();
const credentials = (prefix: number) =>
  Uint8Array.from(Buffer.from(`0${prefix}${"00".repeat(11)}${address}`, "hex"));
/** Genesis validators 0–2 exit, 3 (compounding, 40 ETH) withdraws 1 ETH; all withdraw to DEV_ACCOUNTS.user. */
const EXITERS = [0, 1, 2];
const PARTIAL = 3;
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let key: string;

before(async () => {
  devnet = await startConsensusDevnet({
    execution: true,
    validators: 8,
    withdrawalCredentials: (i) => credentials(i === PARTIAL ? 2 : 1),
    genesisBalance: (i) => (i === PARTIAL ? 40 : 32) * 1e9,
  });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution!.url,
  });
  key = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await h?.close();
  await devnet?.close();
});

/** Transactions from the withdrawal address, all in the next block (1 wei a request: the fee then). */
async function send(txs: { to: Address; data: Hex; value: bigint }[]) {
  const ex = devnet.execution!;
  const hashes: Hex[] = [];
  for (const tx of txs)
    hashes.push(await ex.wallet.sendTransaction({ chain: null, account: DEV_ACCOUNTS.user, ...tx }));
  await devnet.advance(1);
  for (const hash of hashes)
    assert.equal((await ex.public.getTransactionReceipt({ hash })).status, "success");
}

async function setExcess(contract: string, excess: bigint) {
  const res = await fetch(devnet.execution!.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "anvil_setStorageAt",
      params: [contract, numberToHex(0n, { size: 32 }), numberToHex(excess, { size: 32 })],
    }),
  });
  assert.equal(res.status, 200);
}

const amount8 = (gwei: bigint) => numberToHex(gwei, { size: 8 });

/** EIP-7002 / EIP-7251 `fake_exponential(MIN_FEE = 1, excess, UPDATE_FRACTION = 17)`. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint) {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

async function beacon<T>(path: string): Promise<T> {
  const res = await fetch(`${devnet.url}${path}`);
  assert.equal(res.status, 200, path);
  return ((await res.json()) as { data: T }).data;
}

test("the network figures equal the Electra churn rules over the node's raw state, and the fees the contracts'", async () => {
  await devnet.advanceToEndOfEpoch(3);
  // Three full exits and a 1 ETH partial withdrawal.
  const pubkey = (i: number) => devnet.pubkeyOf(i) as Hex;
  const request = (data: Hex) => ({ to: WITHDRAWAL_REQUEST_CONTRACT as Address, data, value: 1n });
  await send([
    ...EXITERS.map((i) => request(concatHex([pubkey(i), amount8(0n)]))),
    request(concatHex([pubkey(PARTIAL), amount8(GWEI)])),
  ]);
  // Anvil runs no end-of-block system call, which is what moves a contract's excess: put there what busy
  // blocks would leave (40 and 25 requests above target), so that the fees are not the 1 wei floor.
  await setExcess(WITHDRAWAL_REQUEST_CONTRACT, 40n);
  await setExcess(CONSOLIDATION_REQUEST_CONTRACT, 25n);
  // Two new validators' deposits (32 and 1,000 ETH), waiting in the queue for finality and the churn.
  await send(
    [32, 1000].map((eth, i) =>
      depositCall(interopSecretKey(100 + i), credentials(1), eth * 1e9, devnet.chain.config),
    ),
  );

  const res = await supertest(h.app).get("/api/network/ethereum").set("api-key", key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const got = res.body;

  // The node's raw state at the same head (the devnet makes no slot by itself).
  const head = await beacon<{ header: { message: { slot: string } } }>("/eth/v1/beacon/headers/head");
  const slot = Number(head.header.message.slot);
  assert.equal(got.slot, slot);
  const spec = await beacon<Record<string, string>>("/eth/v1/config/spec");
  const validators = await beacon<
    { balance: string; status: string; validator: { effective_balance: string; exit_epoch: string } }[]
  >(`/eth/v1/beacon/states/${slot}/validators`);
  const deposits = await beacon<{ amount: string }[]>(`/eth/v1/beacon/states/${slot}/pending_deposits`);
  const partials = await beacon<{ withdrawable_epoch: string }[]>(
    `/eth/v1/beacon/states/${slot}/pending_partial_withdrawals`,
  );
  const c = (name: string) => BigInt(spec[name] as string);
  const epoch = BigInt(slot) / c("SLOTS_PER_EPOCH");
  const active = validators.filter((v) => v.status.startsWith("active"));
  // get_total_active_balance, get_balance_churn_limit, get_activation_exit_churn_limit (Electra).
  const total = active.reduce((s, v) => s + BigInt(v.validator.effective_balance), 0n);
  let churn = c("MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA");
  if (total / c("CHURN_LIMIT_QUOTIENT") > churn) churn = total / c("CHURN_LIMIT_QUOTIENT");
  churn -= churn % c("EFFECTIVE_BALANCE_INCREMENT");
  // min() of two bigints (Math.min takes numbers).
  let exitChurn = c("MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT");
  if (churn < exitChurn) exitChurn = churn;
  const exiting = active.filter(
    (v) => BigInt(v.validator.exit_epoch) !== FAR_FUTURE && BigInt(v.validator.exit_epoch) > epoch,
  );
  // earliest_exit_epoch as the exits and partials that consumed the churn left it.
  let earliest = epoch + 1n + c("MAX_SEED_LOOKAHEAD");
  for (const v of exiting)
    if (BigInt(v.validator.exit_epoch) > earliest) earliest = BigInt(v.validator.exit_epoch);
  for (const w of partials) {
    const queued = BigInt(w.withdrawable_epoch) - c("MIN_VALIDATOR_WITHDRAWABILITY_DELAY");
    if (queued > earliest) earliest = queued;
  }
  const queued = deposits.reduce((s, d) => s + BigInt(d.amount), 0n);
  const entryEpochs = (queued + exitChurn - 1n) / exitChurn + 1n + c("MAX_SEED_LOOKAHEAD");
  const epochSeconds = Number(c("SLOTS_PER_EPOCH") * c("SECONDS_PER_SLOT"));

  // Fees: the getter (eth_call, empty calldata) and the formula over the stored excess agree.
  const ex = devnet.execution!.public;
  const fees: string[] = [];
  for (const contract of [WITHDRAWAL_REQUEST_CONTRACT, CONSOLIDATION_REQUEST_CONTRACT]) {
    const { data } = await ex.call({ to: contract as Address, data: "0x" });
    const excess = BigInt((await ex.getStorageAt({ address: contract as Address, slot: "0x0" })) ?? "0x0");
    assert.equal(BigInt(data ?? "0x"), fakeExponential(1n, excess, 17n), `${contract} fee = formula`);
    fees.push(BigInt(data ?? "0x").toString());
  }

  assert.deepEqual(
    {
      active_validators: got.active_validators,
      total_active_stake: got.total_active_stake,
      total_active_effective_balance: got.total_active_effective_balance,
      balance_churn_limit: got.balance_churn_limit,
      activation_exit_churn_limit: got.activation_exit_churn_limit,
      entry_queue: got.entry_queue,
      exit_queue: got.exit_queue,
      request_fees: got.request_fees,
    },
    {
      active_validators: active.length,
      total_active_stake: active.reduce((s, v) => s + BigInt(v.balance), 0n).toString(),
      total_active_effective_balance: total.toString(),
      balance_churn_limit: churn.toString(),
      activation_exit_churn_limit: exitChurn.toString(),
      entry_queue: {
        pending_deposits: deposits.length,
        pending_balance: queued.toString(),
        wait_epochs: Number(entryEpochs),
        wait_seconds: Number(entryEpochs) * epochSeconds,
      },
      exit_queue: {
        validators: exiting.length,
        balance: exiting.reduce((s, v) => s + BigInt(v.balance), 0n).toString(),
        pending_partial_withdrawals: partials.length,
        earliest_exit_epoch: Number(earliest),
        wait_epochs: Number(earliest - epoch),
        wait_seconds: Number(earliest - epoch) * epochSeconds,
      },
      request_fees: { withdrawal_request: fees[0], consolidation_request: fees[1] },
    },
  );
  // What the scenario put in: the queues and the fees are not empty, so the equality above means something.
  assert.equal(got.entry_queue.pending_deposits, 2, JSON.stringify(got));
  assert.equal(got.entry_queue.pending_balance, String(1032n * GWEI));
  assert.equal(got.exit_queue.validators, 3, JSON.stringify(got.exit_queue));
  assert.equal(got.exit_queue.pending_partial_withdrawals, 1, JSON.stringify(got.exit_queue));
  assert.ok(BigInt(got.request_fees.withdrawal_request) > 1n, JSON.stringify(got.request_fees));
  assert.ok(BigInt(got.request_fees.consolidation_request) > 1n, JSON.stringify(got.request_fees));
  // 1,032 ETH at 64 ETH an epoch (the minimal preset's MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA, above a
  // 256 ETH stake's quotient), then the activation delay.
  assert.equal(got.activation_exit_churn_limit, String(64n * GWEI));
  assert.equal(got.entry_queue.wait_epochs, 17 + 1 + Number(c("MAX_SEED_LOOKAHEAD")));
});

test("the answer is shared briefly: a second call within the cache does not ask the node again", async () => {
  const path = "/eth/v1/beacon/states/";
  const count = () => [...devnet.requests].filter(([p]) => p.startsWith(path)).reduce((s, [, n]) => s + n, 0);
  const first = await supertest(h.app).get("/api/network/ethereum").set("api-key", key);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const before = count();
  const again = await supertest(h.app).get("/api/network/ethereum").set("api-key", key);
  assert.deepEqual(again.body, first.body);
  assert.equal(count(), before, "no state read for the second call");
  const noKey = await supertest(h.app).get("/api/network/ethereum");
  assert.equal(noKey.status, 401, JSON.stringify(noKey.body));
});
