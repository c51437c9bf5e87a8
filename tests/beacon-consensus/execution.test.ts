import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Address, concatHex, type Hex, pad, toHex } from "viem";
import { createBeaconApi } from "../../control-plane/src/features/beacon-data/client.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { WITHDRAWAL_REQUEST_CONTRACT } from "../../devnet/beacon/contracts.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { loadLodestar } from "./load.ts";

const { depositCall, getClient, interopSecretKey, SLOTS_PER_EPOCH, startConsensusDevnet } =
  await loadLodestar();
type ApiClient = import("./lodestar.ts").ApiClient;

/**
 * The consensus devnet with anvil as its execution layer: every payload is an anvil block (builder blocks
 * among them), a deposit made on the deposit contract enters the chain as an EIP-6110 request, waits in the
 * state's pending deposits and becomes a validator by the real rules (its signature checked), and an
 * EIP-7002 full-exit request from its withdrawal address starts its exit. Every endpoint read is parsed by
 * `@lodestar/api`.
 */
let devnet: ConsensusDevnet;
let api: ApiClient;
const NEW = interopSecretKey(64);
const NEW_PUBKEY = NEW.toPublicKey().toHex();
const WITHDRAWAL = DEV_ACCOUNTS.user;

before(async () => {
  devnet = await startConsensusDevnet({ execution: true, validators: 64, offline: [63], builderShare: 0.5 });
  api = getClient({ baseUrl: devnet.url }, { config: devnet.chain.config });
});
after(async () => {
  await devnet?.close();
});

async function send(tx: { to: Address; data: Hex; value: bigint }) {
  const ex = devnet.execution;
  if (!ex) throw new Error("no execution node");
  const hash = await ex.wallet.sendTransaction({ chain: null, account: WITHDRAWAL, ...tx });
  // The next block carries it (a slot of the offline validator has none).
  const before = await ex.public.getBlockNumber({ cacheTime: 0 });
  while ((await ex.public.getBlockNumber({ cacheTime: 0 })) === before) await devnet.advance(1);
  const receipt = await ex.public.getTransactionReceipt({ hash });
  assert.equal(receipt.status, "success", `transaction to ${tx.to} reverted`);
  return receipt;
}
const advanceUntil = async (what: string, done: () => Promise<boolean>, maxSlots = 40 * SLOTS_PER_EPOCH) => {
  for (let i = 0; i < maxSlots; i++) {
    if (await done()) return;
    await devnet.advance();
  }
  assert.fail(`${what}: not within ${maxSlots} slots`);
};
const validator = async () => {
  const res = await api.beacon.getStateValidator({ stateId: "head", validatorId: NEW_PUBKEY });
  return res.status === 404 ? undefined : res.value();
};

test("payloads are anvil's blocks, builder blocks among them, and every endpoint parses", async () => {
  await devnet.advance(2 * SLOTS_PER_EPOCH);
  const ex = devnet.execution;
  assert.ok(ex);
  const head = (await api.beacon.getBlockV2({ blockId: "head" })).value();
  const payload = (head.message.body as { executionPayload: { blockHash: Uint8Array; blockNumber: number } })
    .executionPayload;
  const el = await ex.public.getBlock({ blockNumber: BigInt(payload.blockNumber) });
  assert.equal(toHex(payload.blockHash), el.hash);
  assert.ok([...(devnet.payments?.values() ?? [])].some((p) => p.builder !== null));
  const genesis = (await api.beacon.getGenesis()).value();
  assert.equal(toHex(genesis.genesisForkVersion), "0x10000910");
  const spec = (await api.config.getSpec()).value();
  assert.equal(spec.SLOTS_PER_EPOCH, String(SLOTS_PER_EPOCH));
  const header = (await api.beacon.getBlockHeader({ blockId: "head" })).value();
  assert.equal(header.header.message.slot, head.message.slot);
  const active = (
    await api.beacon.postStateValidators({ stateId: "head", statuses: ["active_ongoing"] })
  ).value();
  assert.equal(active.length, 64);
  (await api.beacon.getPendingPartialWithdrawals({ stateId: "head" })).value();
  (await api.beacon.getPendingConsolidations({ stateId: "head" })).value();
});

test("the control plane's Beacon API client reads everything it reads from the consensus devnet", async () => {
  const beacon = createBeaconApi({ url: devnet.url, timeoutMs: 10_000, maxBytes: 50_000_000 });
  const spec = await beacon.spec();
  assert.equal(spec.slotsPerEpoch, SLOTS_PER_EPOCH);
  assert.equal(spec.secondsPerSlot, 2);
  // The head is the newest block: a last slot left empty (an offline proposer's) is not it.
  let slot = devnet.chain.head;
  while (!devnet.chain.blockAt(slot)) slot--;
  assert.equal(await beacon.headSlot(), slot);
  assert.ok(await beacon.blockRoot(slot));
  const block = await beacon.block(slot);
  assert.equal(Number(block?.message.slot), slot);
  const pubkeys = [0, 1, 63].map((i) => devnet.chain.headState().validators.getReadonly(i).pubkey);
  const validators = await beacon.validators(
    "head",
    pubkeys.map((p) => toHex(p)),
  );
  assert.deepEqual(
    validators.map((v) => v.status),
    ["active_ongoing", "active_ongoing", "active_ongoing"],
  );
  assert.ok(await beacon.validator(toHex(pubkeys[0] as Uint8Array)));
  assert.deepEqual(await beacon.pendingDeposits("head"), []);
  assert.deepEqual(await beacon.pendingPartialWithdrawals("head"), []);
  assert.deepEqual(await beacon.pendingConsolidations(slot), []);
  assert.equal(await beacon.shardCommitteePeriod(), 2);
  assert.ok((await beacon.finalizedEpoch()) !== null);
  const refused = await beacon.submitVoluntaryExit({
    message: { epoch: "0", validator_index: "3" },
    signature: `0x${"00".repeat(96)}`,
  });
  assert.equal(refused.accepted, false);
});

test("a deposit on the deposit contract becomes a validator by the real rules", async () => {
  const withdrawalCredentials = Uint8Array.from(
    Buffer.from(`01${"00".repeat(11)}${WITHDRAWAL.slice(2)}`, "hex"),
  );
  await send(depositCall(NEW, withdrawalCredentials, 32e9, devnet.chain.config));
  const block = (await api.beacon.getBlockV2({ blockId: "head" })).value();
  const requests = (block.message.body as { executionRequests: { deposits: { pubkey: Uint8Array }[] } })
    .executionRequests;
  assert.deepEqual(
    requests.deposits.map((d) => toHex(d.pubkey)),
    [NEW_PUBKEY],
  );
  const pending = (await api.beacon.getPendingDeposits({ stateId: "head" })).value();
  assert.deepEqual(
    pending.map((d) => toHex(d.pubkey)),
    [NEW_PUBKEY],
  );
  await advanceUntil("the deposit becomes a validator", async () => (await validator()) !== undefined);
  assert.equal((await validator())?.status, "pending_initialized");
  await advanceUntil(
    "the validator becomes active",
    async () => (await validator())?.status === "active_ongoing",
  );
});

test("an EIP-7002 full exit from the withdrawal address starts the validator's exit", async () => {
  const v = await validator();
  assert.ok(v);
  await advanceUntil(
    "the shard committee period passes",
    async () => devnet.chain.head >= (v.validator.activationEpoch + 2) * SLOTS_PER_EPOCH,
  );
  await send({
    to: WITHDRAWAL_REQUEST_CONTRACT as Address,
    data: concatHex([NEW_PUBKEY as Hex, pad(toHex(0), { size: 8 })]),
    value: 1n,
  });
  const block = (await api.beacon.getBlockV2({ blockId: "head" })).value();
  const requests = (
    block.message.body as { executionRequests: { withdrawals: { validatorPubkey: Uint8Array }[] } }
  ).executionRequests;
  assert.deepEqual(
    requests.withdrawals.map((w) => toHex(w.validatorPubkey)),
    [NEW_PUBKEY],
  );
  assert.equal((await validator())?.status, "active_exiting");
});
