import "./preset.ts";
import type { SecretKey } from "@chainsafe/lodestar-z/blst";
import type { PubkeyCache } from "@chainsafe/lodestar-z/pubkeys";
import { SLOTS_PER_EPOCH } from "@lodestar/params";
import {
  computeBlockRewards,
  computeEpochAtSlot,
  computeSyncCommitteeRewards,
  getVoluntaryExitValidity,
  VoluntaryExitValidity,
} from "@lodestar/state-transition";
import { type phase0, ssz } from "@lodestar/types";
import { type DevnetNetwork, devnetChainConfig } from "./config.ts";
import { type DevnetAttestation, type DevnetSignedBlock, type DevnetState, typesAt } from "./fork.ts";
import { createGenesisState, type GenesisValidator } from "./genesis.ts";
import { devnetSecretKeys, freshPubkeyCache } from "./keys.ts";
import { type PayloadBuilder, syntheticPayloads } from "./payload.ts";
import { advance, attest, doubleProposal, includable, propose } from "./producer.ts";
import { exactAttestationsRewards } from "./rewards.ts";

/**
 * The beacon devnet's chain made by Lodestar's state transition (Electra, or Deneb up to `electraForkEpoch`;
 * minimal preset): `validators` interop-keyed validators active from genesis, those in `offline` never doing
 * their duties (so their attestation and sync-committee penalties, and the inactivity rules when many are
 * offline, show). Every slot's state is Lodestar's; the devnet keeps the recent ones for the Beacon API and
 * its rewards endpoints, which call Lodestar's own reward accounting on them.
 *
 * Time: `start()` makes each slot at its wall-clock time from genesis; a slot the devnet could not make in
 * time is left empty (the next block's state transition processes it), never made late. Tests drive slots
 * with `produceSlot()` instead.
 */
export interface ConsensusChainOptions {
  network: DevnetNetwork;
  secondsPerSlot: number;
  genesisTime: number;
  validators: number;
  offline?: number[];
  /** Withdrawal credentials (32 bytes, 0x01 or 0x02 with an address) of genesis validator `i`. */
  withdrawalCredentials?: (index: number) => Uint8Array;
  /** Genesis balance of validator `i` in gwei (default 32 ETH), as a devnet's custom genesis sets it. */
  genesisBalance?: (index: number) => number;
  payloads?: PayloadBuilder;
  /** Drops the execution blocks made for the slots after `slot` (a re-org replaces them). */
  rewindPayloads?: (slot: number) => Promise<void>;
  executionGenesis?: { blockHash: Uint8Array; blockNumber: number; timestamp: number };
  /** Slots of states kept for the Beacon API (default 4 epochs of the minimal preset and more). */
  history?: number;
  /** Genesis validators after the interop ones, as a devnet's custom genesis lists them. */
  extraGenesis?: ExtraGenesisValidator[];
  /** The first Electra epoch (default 0); the chain is Deneb's before it (config.ts). */
  electraForkEpoch?: number;
}

/**
 * A genesis validator of the caller's (a provisioned key): with `secretKey` the devnet does its duties as
 * its validator client would, without it the validator never signs (offline).
 */
export interface ExtraGenesisValidator extends GenesisValidator {
  secretKey?: SecretKey;
}

interface SlotRecord {
  /** The state after the slot (its block's post-state, or the empty slot's). */
  post: DevnetState;
  /** The block's pre-state (the parent's state advanced to the slot), for the block's rewards. */
  pre?: DevnetState;
  block?: DevnetSignedBlock;
  root?: Uint8Array;
}

const hexOf = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));

export function defaultWithdrawalCredentials(index: number): Uint8Array {
  const wc = new Uint8Array(32);
  wc[0] = 1;
  wc.fill(0xa0, 12);
  new DataView(wc.buffer).setUint32(28, index);
  return wc;
}

/** 32 bytes of graffiti naming the branch a block was made on (zero before any re-org). */
const graffitiOf = (fork: number) => {
  const g = new Uint8Array(32);
  if (fork > 0) Buffer.from(`reorg ${fork}`).copy(g);
  return g;
};

export function createConsensusChain(opts: ConsensusChainOptions) {
  const config = devnetChainConfig(opts.network, {
    secondsPerSlot: opts.secondsPerSlot,
    ...(opts.electraForkEpoch !== undefined ? { electraForkEpoch: opts.electraForkEpoch } : {}),
  });
  const keys: (SecretKey | undefined)[] = devnetSecretKeys(opts.validators);
  const pubkeyCache: PubkeyCache = freshPubkeyCache();
  const wc = opts.withdrawalCredentials ?? defaultWithdrawalCredentials;
  const interop = keys.map((k, i) => ({
    pubkey: (k as SecretKey).toPublicKey().toBytes(),
    withdrawalCredentials: wc(i),
    balance: opts.genesisBalance?.(i) ?? 32e9,
  }));
  const extra = opts.extraGenesis ?? [];
  keys.push(...extra.map((v) => v.secretKey));
  const genesis = createGenesisState({
    config,
    pubkeyCache,
    genesisTime: opts.genesisTime,
    validators: [...interop, ...extra],
    genesisValidatorsRoot: bytes(opts.network.genesisValidatorsRoot),
    executionGenesis: opts.executionGenesis ?? {
      blockHash: new Uint8Array(32),
      blockNumber: 0,
      timestamp: opts.genesisTime,
    },
  });
  const beaconConfig = genesis.config;
  const duties = { keys, offline: new Set(opts.offline ?? []) };
  const payloads = opts.payloads ?? syntheticPayloads();
  const history = opts.history ?? 256;
  const genesisRoot = ssz.phase0.BeaconBlockHeader.hashTreeRoot({
    ...genesis.latestBlockHeader.toValue(),
    stateRoot: genesis.hashTreeRoot(),
  });
  const slots = new Map<number, SlotRecord>([[0, { post: genesis, root: genesisRoot }]]);
  const byRoot = new Map<string, number>([[hexOf(genesisRoot), 0]]);
  let head = 0;
  let headRoot = genesisRoot;
  let attestationPool: DevnetAttestation[] = [];
  const exitPool: phase0.SignedVoluntaryExit[] = [];
  const slashingPool: phase0.ProposerSlashing[] = [];
  /** Keys a validator client imported whose validators the registry does not hold yet, by pubkey. */
  const imported = new Map<string, SecretKey>();
  /** Re-orgs so far: each one's blocks carry it as graffiti, so a replaced slot's block has another root. */
  let fork = 0;

  const headState = () => (slots.get(head) as SlotRecord).post;

  /**
   * Makes `slot` (default the next): its proposer's block if the proposer is online, else an empty slot;
   * then the slot's committees attest to the head. Slots between the head and `slot` stay empty.
   */
  async function produceSlot(slot = head + 1) {
    if (slot <= head) throw new Error(`slot ${slot} is not after the head ${head}`);
    const pre = advance(headState(), slot);
    for (const [pubkey, key] of imported) {
      const index = pre.epochCtx.getValidatorIndex(key.toPublicKey().toBytes());
      if (index === null || index === undefined) continue;
      keys[index] = key;
      imported.delete(pubkey);
    }
    const proposer = pre.epochCtx.getBeaconProposer(slot);
    const record: SlotRecord = { post: pre };
    // An offline proposer's slot stays empty, and so does a slashed one's (its block would be invalid).
    if (!duties.offline.has(proposer) && keys[proposer] && !pre.validators.getReadonly(proposer).slashed) {
      const attestations = includable(pre, attestationPool, slot);
      const voluntaryExits = exitPool
        .splice(0, 16)
        .filter(
          (x) =>
            getVoluntaryExitValidity(config.getForkSeq(slot), pre, x, false) === VoluntaryExitValidity.valid,
        );
      const proposerSlashings = slashingPool.splice(0, 16);
      const { block, post } = await propose(
        pre,
        duties,
        { attestations, voluntaryExits, proposerSlashings },
        payloads,
        graffitiOf(fork),
      );
      attestationPool = attestationPool.filter((a) => !attestations.includes(a));
      headRoot = typesAt(config, slot).BeaconBlock.hashTreeRoot(block.message);
      Object.assign(record, { post, pre, block, root: headRoot });
      byRoot.set(hexOf(headRoot), slot);
    }
    slots.set(slot, record);
    head = slot;
    attestationPool.push(...attest(record.post, slot, headRoot, duties));
    attestationPool = attestationPool.filter((a) => a.data.slot >= slot - 2 * SLOTS_PER_EPOCH);
    for (const [s, r] of slots) {
      if (s === 0 || s >= slot - history) continue;
      slots.delete(s);
      if (r.root) byRoot.delete(hexOf(r.root));
    }
    return record.block;
  }

  /**
   * The record of `slot`, or of the latest slot before it (a slot the clock skipped has none); undefined for
   * a slot older than the history kept (genesis is always kept).
   */
  const recordAt = (slot: number) => {
    if (slot > 0 && slot < head - history) return undefined;
    for (let s = Math.min(slot, head); s >= 0; s--) {
      const r = slots.get(s);
      if (r) return { slot: s, ...r };
    }
    return undefined;
  };

  /**
   * Replaces the last `depth` slots by other blocks, as a fork choice that switched to a competing branch
   * does: the states and blocks after the branch point are dropped (with their execution blocks, and the
   * attestations that voted for them), and the slots up to the old head are made again on the older head.
   */
  async function reorg(depth: number) {
    const target = head - depth;
    const finalized = headState().finalizedCheckpoint.epoch * SLOTS_PER_EPOCH;
    if (depth < 1 || target < finalized) throw new Error(`cannot re-org to slot ${target}: finalized`);
    await opts.rewindPayloads?.(target);
    for (const [s, r] of slots) {
      if (s <= target) continue;
      slots.delete(s);
      if (r.root) byRoot.delete(hexOf(r.root));
    }
    head = target;
    headRoot = latestRoot(target);
    attestationPool = attestationPool.filter((a) => a.data.slot <= target);
    fork++;
    // The branch taken skipped the first replaced slot, as when a late block is re-orged out by the next
    // proposer building on its parent: that block's rewards and payment are gone, the rest is made again.
    await produceSlot(target + Math.min(2, depth));
    while (head < target + depth) await produceSlot();
  }
  /** The root of the latest block at or before `slot` (genesis when there is none). */
  const latestRoot = (slot: number) => {
    for (let s = slot; s > 0; s--) {
      const root = slots.get(s)?.root;
      if (root) return root;
    }
    return genesisRoot;
  };

  let timer: NodeJS.Timeout | undefined;
  /** Slots left empty by `start()` because their time had passed before the devnet got to them. */
  let late = 0;
  let running: Promise<unknown> = Promise.resolve();
  /** Slots are made one at a time, whoever asks (the clock, a test, the advance endpoint). */
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = running.then(fn);
    running = run.catch(() => {});
    return run;
  };
  const wallSlot = () => Math.floor((Date.now() / 1000 - opts.genesisTime) / opts.secondsPerSlot);

  return {
    config: beaconConfig,
    pubkeyCache,
    genesisRoot,
    get head() {
      return head;
    },
    headState,
    get lateSlots() {
      return late;
    },
    get headRoot() {
      return headRoot;
    },
    produceSlot: (slot?: number) => serial(() => produceSlot(slot)),
    reorg: (depth: number) => serial(() => reorg(depth)),
    /** Makes each slot at its time; a slot whose time has passed when the devnet gets to it stays empty. */
    start() {
      const tick = () => {
        const next = head + 1;
        const due = (opts.genesisTime + next * opts.secondsPerSlot) * 1000;
        timer = setTimeout(
          () => {
            const slot = Math.max(next, wallSlot());
            late += slot - next;
            running = running.then(() => produceSlot(slot)).catch(() => {});
            void running.finally(tick);
          },
          Math.max(0, due - Date.now()),
        );
      };
      tick();
    },
    async stop() {
      if (timer) clearTimeout(timer);
      await running;
    },
    stateAt: (slot: number) => recordAt(slot)?.post,
    blockAt: (slot: number) => slots.get(slot)?.block,
    slotOfRoot: (root: string) => byRoot.get(root.toLowerCase()),
    /** The latest block at or before `slot` and its slot (undefined: only genesis). */
    latestBlock(slot = head) {
      for (let s = Math.min(slot, head); s > 0; s--) {
        const b = slots.get(s)?.block;
        if (b) return b;
      }
      return undefined;
    },
    rootOf: (slot: number) => slots.get(slot)?.root,
    /** POST /eth/v1/beacon/pool/voluntary_exits: checked against the head state by the real rules. */
    submitVoluntaryExit(exit: phase0.SignedVoluntaryExit): VoluntaryExitValidity {
      const state = advance(headState(), head + 1);
      const validity = getVoluntaryExitValidity(config.getForkSeq(state.slot), state, exit, true);
      if (validity === VoluntaryExitValidity.valid) exitPool.push(exit);
      return validity;
    },
    /** Makes validator `index` propose twice at the head slot and pools the proof: the next block slashes it. */
    slash(index: number) {
      const key = keys[index];
      if (!key) throw new Error(`validator ${index} has no key on this devnet`);
      slashingPool.push(doubleProposal(advance(headState(), head + 1), index, key));
    },
    /**
     * The validator client takes `key` (an operator's exported keystore): its validator does its duties from
     * the first slot its deposit has put it in the registry.
     */
    importKey(key: SecretKey) {
      imported.set(hexOf(key.toPublicKey().toBytes()), key);
    },
    setOffline(index: number, offline: boolean) {
      if (offline) duties.offline.add(index);
      else duties.offline.delete(index);
    },
    /**
     * The attestation rewards for `epoch` (rewards.ts): from the state at the last slot of the next epoch
     * (the one whose epoch processing pays them). Undefined until that state exists.
     */
    async attestationRewards(epoch: number, ids?: (number | string)[]) {
      const last = (epoch + 2) * SLOTS_PER_EPOCH - 1;
      const state = last <= head ? recordAt(last)?.post : undefined;
      if (!state || computeEpochAtSlot(state.slot) !== epoch + 1) return undefined;
      return exactAttestationsRewards(beaconConfig, pubkeyCache, state, ids);
    },
    /** Lodestar's proposer reward for the block at `slot`, from the block's pre-state. */
    async blockRewards(slot: number) {
      const r = slots.get(slot);
      if (!r?.block || !r.pre) return undefined;
      return computeBlockRewards(beaconConfig, r.block.message, r.pre);
    },
    /** Lodestar's sync committee rewards for the block at `slot`, from the block's pre-state. */
    async syncCommitteeRewards(slot: number, ids?: (number | string)[]) {
      const r = slots.get(slot);
      if (!r?.block || !r.pre) return undefined;
      return computeSyncCommitteeRewards(beaconConfig, pubkeyCache, r.block.message, r.pre, ids);
    },
  };
}

export type ConsensusChain = ReturnType<typeof createConsensusChain>;
