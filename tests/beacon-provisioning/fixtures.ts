import { ByteVectorType, ContainerType, UintBigintType } from "@chainsafe/ssz";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { validators } from "@stake/db/schema/provisioning";
import { inArray } from "drizzle-orm";
import supertest from "supertest";
import type { Address, Hex } from "viem";
import { BEACON_NETWORKS } from "../../control-plane/src/chains/beacon-networks.ts";
import { createKeyCipher } from "../../control-plane/src/platform/secret-envelope.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ExtraGenesisValidator } from "../../devnet/beacon/consensus/chain.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { freePort } from "../../scripts/lib/ports.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";

/** The provisioning worker, in-process, on its own queue connection. */
export function startWorker(h: ControlPlaneHarness, concurrency = 1) {
  return startJobs(h, [QUEUES.provision.name], { provisionConcurrency: concurrency });
}

/** Polls GET /api/validators until the provision leaves IN_PROGRESS. */
export function waitForProvision(app: ControlPlaneHarness["app"], key: string, provisionId: string) {
  return eventually(
    async () => {
      const res = await supertest(app).get("/api/validators").query({ provisionId }).set("api-key", key);
      return res.body.provisionStatus !== "IN_PROGRESS" && res;
    },
    { what: `provision ${provisionId} to leave IN_PROGRESS` },
  );
}

const Bytes32 = new ByteVectorType(32);
const Gwei = new UintBigintType(8);
const DepositMessage = new ContainerType({
  pubkey: new ByteVectorType(48),
  withdrawal_credentials: Bytes32,
  amount: Gwei,
});
const DepositData = new ContainerType({
  pubkey: new ByteVectorType(48),
  withdrawal_credentials: Bytes32,
  amount: Gwei,
  signature: new ByteVectorType(96),
});
const SigningData = new ContainerType({ object_root: Bytes32, domain: Bytes32 });
const ForkData = new ContainerType({
  current_version: new ByteVectorType(4),
  genesis_validators_root: Bytes32,
});
const b = (h: string) => new Uint8Array(Buffer.from(h.replace(/^0x/, ""), "hex"));
const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");

/**
 * Independent re-verification of a deposit-data entry (hex without 0x): roots with @chainsafe/ssz, the
 * domain from ForkData, and the signature with @noble/curves (not the blst binding that signed it).
 */
export function reverifyDepositData(d: {
  pubkey: string;
  withdrawal_credentials: string;
  amount: number;
  signature: string;
  /** Absent for a bare calldata check: then only the data root and signature are compared. */
  deposit_message_root?: string;
  deposit_data_root: string;
  fork_version: string;
}): void {
  const msg = {
    pubkey: b(d.pubkey),
    withdrawal_credentials: b(d.withdrawal_credentials),
    amount: BigInt(d.amount),
  };
  const msgRoot = DepositMessage.hashTreeRoot(msg);
  if (d.deposit_message_root !== undefined && hex(msgRoot) !== d.deposit_message_root)
    throw new Error("deposit_message_root differs");
  if (hex(DepositData.hashTreeRoot({ ...msg, signature: b(d.signature) })) !== d.deposit_data_root) {
    throw new Error("deposit_data_root differs");
  }
  const forkRoot = ForkData.hashTreeRoot({
    current_version: b(d.fork_version),
    genesis_validators_root: new Uint8Array(32),
  });
  const domain = new Uint8Array(32);
  domain.set([3, 0, 0, 0]);
  domain.set(forkRoot.subarray(0, 28), 4);
  const signingRoot = SigningData.hashTreeRoot({ object_root: msgRoot, domain });
  const L = bls12_381.longSignatures;
  const point = L.hash(signingRoot, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_");
  if (!L.verify(b(d.signature), point, b(d.pubkey))) throw new Error("signature does not verify (noble)");
}

const VoluntaryExit = new ContainerType({
  epoch: new UintBigintType(8),
  validator_index: new UintBigintType(8),
});

/** Verifies a signed exit with @chainsafe/ssz and @noble/curves only, against Hoodi's Capella domain (EIP-7044). */
export function nobleVerifiesExit(
  exit: { message: { epoch: string; validator_index: string }; signature: string },
  pubkey: string,
) {
  const domain = new Uint8Array(32);
  domain.set([4, 0, 0, 0]);
  const fork = ForkData.hashTreeRoot({
    current_version: b("0x40000910"),
    genesis_validators_root: b("0x212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f"),
  });
  domain.set(fork.subarray(0, 28), 4);
  const root = SigningData.hashTreeRoot({
    object_root: VoluntaryExit.hashTreeRoot({
      epoch: BigInt(exit.message.epoch),
      validator_index: BigInt(exit.message.validator_index),
    }),
    domain,
  });
  const L = bls12_381.longSignatures;
  return L.verify(b(exit.signature), L.hash(root, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"), b(pubkey));
}

export const HOODI = BEACON_NETWORKS.hoodi;

/**
 * The control plane's settings for a beacon devnet with anvil (either chain): its two nodes, the batch
 * depositor, the hoodi network constants the devnets answer with, and indexing from genesis.
 */
export function devnetEnv(devnet: {
  url: string;
  execution?: { url: string; batchDepositor: string } | undefined;
}) {
  const ex = devnet.execution;
  if (!ex) throw new Error("no execution node");
  return {
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: ex.url,
    ETH_BATCH_DEPOSITOR: ex.batchDepositor,
    ETH_NETWORK: "hoodi",
    BEACON_INDEXER_START_EPOCH: "0",
    BEACON_INDEXER_MAX_EPOCHS: "100",
  };
}

/**
 * The ports of a devnet that starts after the control plane (its genesis lists validators the control plane
 * provisions first), and the control plane's settings naming its two nodes.
 */
export async function laterDevnet() {
  const beacon = await freePort();
  let execution = await freePort();
  while (execution === beacon) execution = await freePort();
  return {
    beacon,
    execution,
    env: {
      ETH_BEACON_URL: `http://127.0.0.1:${beacon}`,
      ETH_EXECUTION_URL: `http://127.0.0.1:${execution}`,
      ETH_NETWORK: "hoodi",
    },
  };
}

/**
 * A consensus devnet (16 interop validators, anvil, hoodi's constants) on the ports of `laterDevnet`, whose
 * genesis also lists the organisation's provisioned validators (provisionedGenesis).
 */
export async function provisionedDevnet(
  h: ControlPlaneHarness,
  ports: { beacon: number; execution: number },
  wanted: { pubkey: string; balance: bigint; online?: boolean }[],
): Promise<ConsensusDevnet> {
  const { startConsensusDevnet } = await loadLodestar();
  return startConsensusDevnet({
    network: "hoodi",
    port: ports.beacon,
    execution: true,
    executionPort: ports.execution,
    validators: 16,
    extraGenesis: await provisionedGenesis(h, wanted),
  });
}

/**
 * The organisation's provisioned validators as genesis validators of the consensus devnet (a real devnet's
 * custom genesis lists them): their stored credentials, `balance` Gwei each (under 32 ETH: pending, as the
 * spec's genesis leaves it), and, with `online`, their signing keys, so the devnet does their duties as the
 * operator's validator client would. Without a key a validator never signs.
 */
export async function provisionedGenesis(
  h: ControlPlaneHarness,
  wanted: { pubkey: string; balance: bigint; online?: boolean }[],
): Promise<ExtraGenesisValidator[]> {
  const { SecretKey } = await import("@chainsafe/lodestar-z/blst");
  const rows = await h.db
    .select()
    .from(validators)
    .where(
      inArray(
        validators.pubkey,
        wanted.map((w) => w.pubkey),
      ),
    );
  const cipher = createKeyCipher(h.config.eth.keyEncryptionKey);
  return wanted.map((w) => {
    const row = rows.find((r) => r.pubkey === w.pubkey);
    if (!row) throw new Error(`${w.pubkey} is not provisioned`);
    return {
      pubkey: b(w.pubkey),
      withdrawalCredentials: b(row.withdrawalCredentials),
      balance: Number(w.balance),
      ...(w.online
        ? { secretKey: SecretKey.fromBytes(cipher.decrypt(row.encryptedSigningKey, row.pubkey)) }
        : {}),
    };
  });
}

/** A validator as the devnet's Beacon API gives it at the head (undefined: not in the registry). */
export async function onChain(devnet: { url: string }, pubkey: string) {
  const res = await fetch(`${devnet.url}/eth/v1/beacon/states/head/validators/${pubkey}`);
  if (res.status === 404) return undefined;
  const body = (await res.json()) as {
    data: { index: string; status: string; balance: string; validator: Record<string, string> };
  };
  return body.data;
}

/**
 * Makes slots until `done` holds (a chain event at the pace of the devnet's rules), at most `maxEpochs`
 * epochs of them: a condition the rules never reach fails the test instead of running on.
 */
export async function advanceUntil(
  devnet: ConsensusDevnet,
  done: () => Promise<unknown>,
  what: string,
  maxEpochs = 16,
) {
  const { SLOTS_PER_EPOCH } = await loadLodestar();
  const limit = devnet.chain.head + maxEpochs * SLOTS_PER_EPOCH;
  while (!(await done())) {
    if (devnet.chain.head >= limit) throw new Error(`${what}: not within ${maxEpochs} epochs`);
    await devnet.advance(1);
  }
}

/** Makes slots up to the last slot of `epoch`. */
export async function advanceToEndOfEpoch(devnet: ConsensusDevnet, epoch: number) {
  const { SLOTS_PER_EPOCH } = await loadLodestar();
  await devnet.advance(Math.max(0, (epoch + 1) * SLOTS_PER_EPOCH - 1 - devnet.chain.head));
}

/** Signs and mines an unsigned transaction from our API as its `from` would (anvil's unlocked account). */
export async function execute(
  devnet: ConsensusDevnet,
  tx: { from: string; to: string; data: string; value: string },
) {
  const ex = devnet.execution;
  if (!ex) throw new Error("no execution node");
  const hash = await ex.wallet.sendTransaction({
    chain: null,
    account: tx.from as Address,
    to: tx.to as Address,
    data: tx.data as Hex,
    value: BigInt(tx.value),
  });
  // The next slot's payload is the anvil block that mines it (an empty slot mines nothing).
  while (!(await ex.public.getTransactionReceipt({ hash }).catch(() => null))) await devnet.advance(1);
  const receipt = await ex.public.getTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
  return receipt;
}
