import type { Config } from "../config.ts";

/** Per-network constants from docs/chains/ethereum.md §1.4 and §2. Addresses are EIP-55 checksummed. */
export interface BeaconNetwork {
  name: "mainnet" | "hoodi";
  chainId: number;
  genesisForkVersion: string;
  depositContract: string;
  /** Attestant BatchValidatorDepositor (1–100 validators, per-item amount in wei). */
  batchDepositor: string;
  /** The fork version every voluntary exit is signed with since EIP-7044 (§1.4). */
  capellaForkVersion: string;
  genesisValidatorsRoot: string;
}

export const BEACON_NETWORKS = {
  mainnet: {
    name: "mainnet",
    chainId: 1,
    genesisForkVersion: "0x00000000",
    depositContract: "0x00000000219ab540356cBB839Cbe05303d7705Fa",
    batchDepositor: "0x16BF86Efb14FA03a3A207efC03Df5Ed29094a838",
    capellaForkVersion: "0x03000000",
    genesisValidatorsRoot: "0x4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95",
  },
  hoodi: {
    name: "hoodi",
    chainId: 560048,
    genesisForkVersion: "0x10000910",
    depositContract: "0x00000000219ab540356cBB839Cbe05303d7705Fa",
    batchDepositor: "0x9c2880C58e2F7bc7f1Bcbf0e0d220B8a3d6cc5a9",
    capellaForkVersion: "0x40000910",
    genesisValidatorsRoot: "0x212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f",
  },
} as const satisfies Record<string, BeaconNetwork>;

export type BeaconNetworkName = keyof typeof BEACON_NETWORKS;

/** The deployment's network constants, with the contract overrides from configuration. */
export function resolveNetwork(eth: Config["eth"]): BeaconNetwork {
  const base = BEACON_NETWORKS[eth.network];
  return {
    ...base,
    depositContract: eth.depositContract ?? base.depositContract,
    batchDepositor: eth.batchDepositor ?? base.batchDepositor,
  };
}
