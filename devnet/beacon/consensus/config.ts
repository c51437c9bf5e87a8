import "./preset.ts";
import {
  type BeaconConfig,
  type ChainForkConfig,
  createBeaconConfig,
  createChainForkConfig,
} from "@lodestar/config";
import { minimalChainConfig } from "@lodestar/config/configs";
import { ACTIVE_PRESET, PresetName } from "@lodestar/params";

if (ACTIVE_PRESET !== PresetName.minimal) {
  throw new Error(
    `the beacon devnet runs Lodestar's minimal preset, but ${ACTIVE_PRESET} was loaded first: import devnet/beacon/consensus before @lodestar/* or set LODESTAR_PRESET=minimal`,
  );
}

/** The network constants a devnet answers with, so what is signed for that network verifies here too. */
export interface DevnetNetwork {
  genesisForkVersion: string;
  capellaForkVersion: string;
  genesisValidatorsRoot: string;
  chainId: number;
}

const bytes = (hex: string) => Uint8Array.from(Buffer.from(hex.replace(/^0x/, ""), "hex"));

/**
 * The devnet's chain config: Lodestar's minimal config with every fork through Deneb at genesis and Electra
 * from `electraForkEpoch` (default 0: at genesis; above 0 the chain starts as Deneb and Lodestar's
 * `processSlots` upgrades its state at that epoch), the network's genesis and Capella fork versions
 * (deposit and voluntary-exit domains), `secondsPerSlot`, and the exit delays shortened so a validator
 * walks from exit to withdrawal in minutes (`shardCommitteePeriod` epochs before it may exit,
 * `withdrawabilityDelay` epochs from exit to withdrawable).
 */
export function devnetChainConfig(
  network: DevnetNetwork,
  opts: {
    secondsPerSlot: number;
    shardCommitteePeriod?: number;
    withdrawabilityDelay?: number;
    electraForkEpoch?: number;
  },
): ChainForkConfig {
  return createChainForkConfig({
    ...minimalChainConfig,
    CONFIG_NAME: "devnet",
    SECONDS_PER_SLOT: opts.secondsPerSlot,
    SLOT_DURATION_MS: opts.secondsPerSlot * 1000,
    DEPOSIT_CHAIN_ID: network.chainId,
    DEPOSIT_NETWORK_ID: network.chainId,
    GENESIS_FORK_VERSION: bytes(network.genesisForkVersion),
    CAPELLA_FORK_VERSION: bytes(network.capellaForkVersion),
    ALTAIR_FORK_EPOCH: 0,
    BELLATRIX_FORK_EPOCH: 0,
    CAPELLA_FORK_EPOCH: 0,
    DENEB_FORK_EPOCH: 0,
    ELECTRA_FORK_EPOCH: opts.electraForkEpoch ?? 0,
    SHARD_COMMITTEE_PERIOD: opts.shardCommitteePeriod ?? 2,
    MIN_VALIDATOR_WITHDRAWABILITY_DELAY: opts.withdrawabilityDelay ?? 2,
  });
}

export function devnetBeaconConfig(
  chainConfig: ChainForkConfig,
  genesisValidatorsRoot: Uint8Array,
): BeaconConfig {
  return createBeaconConfig(chainConfig, genesisValidatorsRoot);
}
