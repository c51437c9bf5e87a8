import "./preset.ts";
import { type SecretKey, Signature } from "@chainsafe/lodestar-z/blst";
import { BitArray } from "@chainsafe/ssz";
import {
  DOMAIN_BEACON_ATTESTER,
  DOMAIN_BEACON_PROPOSER,
  DOMAIN_RANDAO,
  DOMAIN_SYNC_COMMITTEE,
  ForkSeq,
  MAX_ATTESTATIONS,
  MAX_ATTESTATIONS_ELECTRA,
  MAX_COMMITTEES_PER_SLOT,
  SYNC_COMMITTEE_SIZE,
} from "@lodestar/params";
import {
  type CachedBeaconStateElectra,
  computeEpochAtSlot,
  computeSigningRoot,
  computeStartSlotAtEpoch,
  DataAvailabilityStatus,
  ExecutionPayloadStatus,
  getBlockRootAtSlot,
  getExpectedWithdrawals,
  getRandaoMix,
  processSlots,
  stateTransition,
} from "@lodestar/state-transition";
import { type altair, type capella, type electra, type phase0, type Root, ssz } from "@lodestar/types";
import {
  type DevnetAttestation,
  type DevnetBlock,
  type DevnetSignedBlock,
  type DevnetState,
  isElectra,
  typesAt,
} from "./fork.ts";

/**
 * What the devnet's validators do each slot, as a validator client would, over Lodestar's state transition:
 * attest to the head (Electra: one aggregate per slot, every committee of the slot; Deneb: one aggregate per
 * committee, its index in the data), sign the previous block root in the sync committee, and propose: RANDAO
 * reveal, the pool's attestations, the sync aggregate, exits and slashings, the execution payload and its
 * requests (from Electra). The block's state root comes from running the block
 * through `stateTransition` with every signature verified. Validators in `offline` do none of it.
 */

export interface Duties {
  /** Secret keys by validator index; a validator without one (deposited later) never signs. */
  keys: (SecretKey | undefined)[];
  offline: Set<number>;
}

export interface PayloadInput {
  slot: number;
  timestamp: number;
  parentHash: Uint8Array;
  prevRandao: Uint8Array;
  withdrawals: capella.Withdrawal[];
  proposerIndex: number;
}

/** Electra kept Deneb's execution payload; a Deneb block leaves out the requests. */
export interface BuiltPayload {
  payload: electra.ExecutionPayload;
  requests: electra.ExecutionRequests;
}

export interface BlockExtras {
  attestations: DevnetAttestation[];
  voluntaryExits: phase0.SignedVoluntaryExit[];
  proposerSlashings: phase0.ProposerSlashing[];
}

const INFINITY_SIGNATURE = Uint8Array.from([0xc0, ...new Uint8Array(95)]);

const signer = (duties: Duties, index: number) =>
  duties.offline.has(index) ? undefined : duties.keys[index];

/** The state at `slot` before its block: the head state with the empty slots (and epochs) since processed. */
export function advance(head: DevnetState, slot: number): DevnetState {
  return head.slot < slot ? (processSlots(head, slot) as DevnetState) : head;
}

/** The aggregate of `members`' signatures over `data` (bits: who signed); undefined when none signs. */
function aggregate(state: DevnetState, data: phase0.AttestationData, members: number[], duties: Duties) {
  const root = computeSigningRoot(
    ssz.phase0.AttestationData,
    data,
    state.config.getDomain(state.slot, DOMAIN_BEACON_ATTESTER, data.slot),
  );
  const signatures = members.flatMap((i) => {
    const key = signer(duties, i);
    return key ? [key.sign(root)] : [];
  });
  if (signatures.length === 0) return undefined;
  return {
    aggregationBits: BitArray.fromBoolArray(members.map((i) => signer(duties, i) !== undefined)),
    data,
    signature: Signature.aggregate(signatures, false).toBytes(),
  };
}

/**
 * The attestations of `slot`'s committees to `headRoot`, from `state` (the head state at `slot`, after its
 * block if it had one): in Electra one aggregate covering every committee, as its on-chain aggregates do
 * (`committee_bits`, `data.index` 0); before it one aggregate per committee, `data.index` its index.
 */
export function attest(
  state: DevnetState,
  slot: number,
  headRoot: Root,
  duties: Duties,
): DevnetAttestation[] {
  const epoch = computeEpochAtSlot(slot);
  const start = computeStartSlotAtEpoch(epoch);
  const data = (index: number): phase0.AttestationData => ({
    slot,
    index,
    beaconBlockRoot: headRoot,
    source: state.currentJustifiedCheckpoint.toValue(),
    target: { epoch, root: start === slot ? headRoot : getBlockRootAtSlot(state, start) },
  });
  const count = state.epochCtx.getCommitteeCountPerSlot(epoch);
  const committees = Array.from({ length: count }, (_, c) => [...state.epochCtx.getBeaconCommittee(slot, c)]);
  if (state.config.getForkSeq(slot) < ForkSeq.electra) {
    return committees.flatMap((members, c) => aggregate(state, data(c), members, duties) ?? []);
  }
  const all = aggregate(state, data(0), committees.flat(), duties);
  if (!all) return [];
  const committeeBits = BitArray.fromBoolArray(
    Array.from({ length: MAX_COMMITTEES_PER_SLOT }, (_, c) => c < count),
  );
  return [{ ...all, committeeBits }];
}

/** The sync committee's signatures over the previous slot's block root, as `slot`'s block carries them. */
function syncAggregate(state: DevnetState, duties: Duties): altair.SyncAggregate {
  const previous = Math.max(state.slot, 1) - 1;
  const root = computeSigningRoot(
    ssz.Root,
    getBlockRootAtSlot(state, previous),
    state.config.getDomain(state.slot, DOMAIN_SYNC_COMMITTEE, previous),
  );
  const members = state.epochCtx.currentSyncCommitteeIndexed.validatorIndices.slice(0, SYNC_COMMITTEE_SIZE);
  const byValidator = new Map<number, Signature>();
  const signatures: Signature[] = [];
  const bits = Array.from(members, (i) => {
    const key = signer(duties, i);
    if (!key) return false;
    let sig = byValidator.get(i);
    if (!sig) {
      sig = key.sign(root);
      byValidator.set(i, sig);
    }
    signatures.push(sig);
    return true;
  });
  return {
    syncCommitteeBits: BitArray.fromBoolArray(bits),
    syncCommitteeSignature:
      signatures.length > 0 ? Signature.aggregate(signatures, false).toBytes() : INFINITY_SIGNATURE,
  };
}

/**
 * The attestations a block at `slot` may still include (source and target reward windows included), up to
 * its fork's limit. An attestation is made in its slot's fork: Deneb's left in the pool at the fork do not
 * fit an Electra block (their `data.index` is signed), so they go unincluded, as on a real chain.
 */
export function includable(state: DevnetState, pool: DevnetAttestation[], slot: number) {
  const epoch = computeEpochAtSlot(slot);
  const fork = state.config.getForkSeq(slot);
  const max = fork >= ForkSeq.electra ? MAX_ATTESTATIONS_ELECTRA : MAX_ATTESTATIONS;
  return pool
    .filter(
      (a) =>
        a.data.slot < slot &&
        computeEpochAtSlot(a.data.slot) >= epoch - 1 &&
        state.config.getForkSeq(a.data.slot) === fork,
    )
    .slice(-max);
}

/**
 * `slot`'s block from its pre-state (`advance`d to `slot`), its proposer's: the block, signed, and the
 * post-state. Throws what the state transition throws for an invalid block.
 */
export async function propose(
  pre: DevnetState,
  duties: Duties,
  extras: BlockExtras,
  buildPayload: (input: PayloadInput) => Promise<BuiltPayload>,
  graffiti = new Uint8Array(32),
): Promise<{ block: DevnetSignedBlock; post: DevnetState }> {
  const slot = pre.slot;
  const epoch = computeEpochAtSlot(slot);
  const proposerIndex = pre.epochCtx.getBeaconProposer(slot);
  const key = duties.keys[proposerIndex];
  if (!key) throw new Error(`validator ${proposerIndex} has no key on this devnet`);
  const { config } = pre;
  // Typed for Capella's and later states; Deneb's has Capella's withdrawal fields, and the fork picks the rules.
  const { expectedWithdrawals } = getExpectedWithdrawals(
    config.getForkSeq(slot),
    pre as CachedBeaconStateElectra,
  );
  const { payload, requests } = await buildPayload({
    slot,
    timestamp: pre.genesisTime + slot * config.SECONDS_PER_SLOT,
    parentHash: pre.latestExecutionPayloadHeader.blockHash,
    prevRandao: getRandaoMix(pre, epoch),
    withdrawals: expectedWithdrawals,
    proposerIndex,
  });
  const block: DevnetBlock = {
    slot,
    proposerIndex,
    parentRoot: getBlockRootAtSlot(pre, slot - 1),
    stateRoot: new Uint8Array(32),
    body: {
      randaoReveal: key
        .sign(computeSigningRoot(ssz.Epoch, epoch, config.getDomain(slot, DOMAIN_RANDAO)))
        .toBytes(),
      eth1Data: pre.eth1Data.toValue(),
      graffiti,
      proposerSlashings: extras.proposerSlashings,
      attesterSlashings: [],
      attestations: extras.attestations,
      deposits: [],
      voluntaryExits: extras.voluntaryExits,
      syncAggregate: syncAggregate(pre, duties),
      executionPayload: payload,
      blsToExecutionChanges: [],
      blobKzgCommitments: [],
      ...(isElectra(pre) ? { executionRequests: requests } : {}),
    },
  } as DevnetBlock;
  const post = stateTransition(
    pre,
    { message: block, signature: new Uint8Array(96) },
    {
      verifyStateRoot: false,
      verifyProposer: false,
      verifySignatures: true,
      executionPayloadStatus: ExecutionPayloadStatus.valid,
      dataAvailabilityStatus: DataAvailabilityStatus.Available,
    },
  ) as DevnetState;
  block.stateRoot = post.hashTreeRoot();
  const signature = key
    .sign(
      computeSigningRoot(
        typesAt(config, slot).BeaconBlock,
        block,
        config.getDomain(slot, DOMAIN_BEACON_PROPOSER),
      ),
    )
    .toBytes();
  return { block: { message: block, signature }, post };
}

/**
 * Two different headers signed by `index` for one slot: the proof of a double proposal that slashes it
 * (the devnet's admin endpoint makes one on purpose).
 */
export function doubleProposal(state: DevnetState, index: number, key: SecretKey): phase0.ProposerSlashing {
  const slot = state.slot;
  const domain = state.config.getDomain(slot, DOMAIN_BEACON_PROPOSER);
  const header = (tag: number): phase0.SignedBeaconBlockHeaderBigint => {
    const message = {
      slot: BigInt(slot),
      proposerIndex: index,
      parentRoot: new Uint8Array(32),
      stateRoot: new Uint8Array(32),
      bodyRoot: new Uint8Array(32).fill(tag),
    };
    return {
      message,
      signature: key.sign(computeSigningRoot(ssz.phase0.BeaconBlockHeaderBigint, message, domain)).toBytes(),
    };
  };
  return { signedHeader1: header(1), signedHeader2: header(2) };
}
