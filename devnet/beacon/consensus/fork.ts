import "./preset.ts";
import type { ChainForkConfig } from "@lodestar/config";
import { type ForkName, ForkSeq } from "@lodestar/params";
import type { CachedBeaconStateDeneb, CachedBeaconStateElectra } from "@lodestar/state-transition";
import type { deneb, electra } from "@lodestar/types";

/**
 * The forks a devnet chain runs: Deneb before `electraForkEpoch` (when it is above 0), Electra from it. Every
 * fork-dependent path asks the chain's config which fork a slot is in (`config.getForkSeq(slot)`), as
 * Lodestar's own code does, and takes that fork's SSZ types from `typesAt`.
 */
export type DevnetFork = ForkName.deneb | ForkName.electra;
export type DevnetState = CachedBeaconStateDeneb | CachedBeaconStateElectra;
export type DevnetBlock = deneb.BeaconBlock | electra.BeaconBlock;
export type DevnetSignedBlock = deneb.SignedBeaconBlock | electra.SignedBeaconBlock;
export type DevnetAttestation = deneb.BeaconBlock["body"]["attestations"][number] | electra.Attestation;

export const isElectra = (state: DevnetState): state is CachedBeaconStateElectra =>
  state.config.getForkSeq(state.slot) >= ForkSeq.electra;

/** The SSZ types of `slot`'s fork (blocks, bodies, attestations): what its blocks are hashed and serialised by. */
export const typesAt = (config: ChainForkConfig, slot: number) => config.getForkTypes<DevnetFork>(slot);
