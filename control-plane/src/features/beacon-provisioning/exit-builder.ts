import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import { bytesOf, hexOf } from "../../chains/evm.ts";
import { BuilderError } from "../../errors.ts";
import { type BlsKey, blsVerify } from "./bls.ts";
import { computeSigningRoot, computeVoluntaryExitDomain, voluntaryExitRoot } from "./ssz.ts";

/** The Beacon API's SignedVoluntaryExit (numbers as decimal strings), as POSTed to the node's pool. */
export interface SignedVoluntaryExit {
  message: { epoch: string; validator_index: string };
  signature: string;
}

const UINT64_MAX = (1n << 64n) - 1n;

function exitSigningRoot(epoch: bigint, validatorIndex: bigint, network: BeaconNetwork): Uint8Array {
  const domain = computeVoluntaryExitDomain(
    bytesOf(network.capellaForkVersion),
    bytesOf(network.genesisValidatorsRoot),
  );
  return computeSigningRoot(voluntaryExitRoot(epoch, validatorIndex), domain);
}

/**
 * Signs the voluntary exit of validator `validatorIndex`, valid from `epoch` on (and, by EIP-7044, on every
 * later fork), and verifies it before anyone can use it. Pure: the epoch is an input, no clock, no I/O.
 */
export function buildVoluntaryExit(input: {
  key: BlsKey;
  validatorIndex: number;
  epoch: number;
  network: BeaconNetwork;
}): SignedVoluntaryExit {
  const index = BigInt(input.validatorIndex);
  const epoch = BigInt(input.epoch);
  if (index < 0n || index > UINT64_MAX) throw new BuilderError("validator index out of range", "pubkeys");
  if (epoch < 0n || epoch > UINT64_MAX) throw new BuilderError("exit epoch out of range", "epoch");
  const root = exitSigningRoot(epoch, index, input.network);
  const signature = input.key.sign(root);
  if (!blsVerify(root, input.key.publicKey, signature))
    throw new Error("voluntary exit signature does not verify");
  return {
    message: { epoch: epoch.toString(), validator_index: index.toString() },
    signature: hexOf(signature),
  };
}
