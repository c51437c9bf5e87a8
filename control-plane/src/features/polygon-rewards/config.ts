import { z } from "zod";
import { evmAddress } from "../../chains/evm.ts";
import { NETWORK } from "../../network.ts";

const address = evmAddress;

/**
 * The L1 contracts per NETWORK (docs/chains/polygon-sui.md §1.1, §0). Mainnet names Luganodes'
 * ValidatorShare directly (validator 18); testnet resolves the validator id through Sepolia's StakeManager,
 * which is also where the devnet places its StakeManager.
 */
export const POLYGON_NETWORKS = {
  mainnet: {
    stakeManager: "0x5e3ef299fddf15eaa0432e6e66473ace8c13d908",
    rootChain: "0x86e4dc95c7fbdbf52e33d563bbdb00823894c287",
    validatorShare: "0xa6e768fef2d1af36c0cfdb276422e7881a83e951",
  },
  testnet: {
    stakeManager: "0x4ae8f648b1ec892b6cc68c89cc088583964d08be",
    rootChain: "0xbd07d7e1e93c8d4b2a261327f3c28a8ea7167209",
    validatorShare: undefined,
  },
} as const;

/**
 * The Polygon rewards area's variables and its config (composed into the control plane's, `config.ts`);
 * the contracts left unset default to the NETWORK's.
 */
export const PolygonRewardsConfig = z
  .object({
    NETWORK,
    POLYGON_L1_RPC_URL: z
      .url()
      .default("http://127.0.0.1:8546")
      .describe(
        "Ethereum L1 JSON-RPC endpoint where Polygon PoS staking lives (an archive node lets the worker backfill APR history); the default is the simulated L1.",
      ),
    POLYGON_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .describe("Timeout of one L1 JSON-RPC call, in milliseconds (past it: 504)."),
    POLYGON_VALIDATOR_ID: z.coerce
      .number()
      .int()
      .min(1)
      .default(18)
      .describe(
        "The operator's Polygon validator id; its ValidatorShare is resolved through StakeManager.getValidatorContract and checked with validatorId().",
      ),
    POLYGON_VALIDATOR_SHARE: address()
      .optional()
      .describe(
        "The operator's ValidatorShare contract (default on mainnet: validator 18's 0xa6e7…e951; on testnet resolved from POLYGON_VALIDATOR_ID).",
      ),
    POLYGON_STAKE_MANAGER: address()
      .optional()
      .describe("StakeManagerProxy address (default: the NETWORK's, Sepolia's on testnet)."),
    POLYGON_ROOT_CHAIN: address()
      .optional()
      .describe(
        "RootChainProxy address, whose NewHeaderBlock logs mark checkpoints (default: the NETWORK's).",
      ),
    POLYGON_POLL_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(60_000)
      .describe(
        "Pause between two passes of the worker's Polygon snapshot job (new checkpoint logs, the hourly snapshot, backfill).",
      ),
    POLYGON_SNAPSHOT_INTERVAL_S: z.coerce
      .number()
      .int()
      .min(60)
      .default(3600)
      .describe("Longest gap between two APR snapshots when no checkpoint arrives, in seconds of L1 time."),
    POLYGON_SNAPSHOT_DEPTH: z
      .string()
      .default("finalized")
      .refine((v) => v === "finalized" || /^[0-9]{1,5}$/.test(v), "must be finalized or a number of blocks")
      .describe(
        "How far behind the L1 head APR snapshots are taken: `finalized` (the node's finalized block), or a number of blocks below the latest (0: the head itself, for a devnet).",
      ),
  })
  .transform((e) => {
    const defaults = POLYGON_NETWORKS[e.NETWORK];
    return {
      rpcUrl: e.POLYGON_L1_RPC_URL,
      timeoutMs: e.POLYGON_TIMEOUT_MS,
      validatorId: BigInt(e.POLYGON_VALIDATOR_ID),
      validatorShare: e.POLYGON_VALIDATOR_SHARE ?? defaults.validatorShare,
      stakeManager: e.POLYGON_STAKE_MANAGER ?? defaults.stakeManager,
      rootChain: e.POLYGON_ROOT_CHAIN ?? defaults.rootChain,
      pollIntervalMs: e.POLYGON_POLL_INTERVAL_MS,
      snapshotIntervalS: e.POLYGON_SNAPSHOT_INTERVAL_S,
      snapshotDepth:
        e.POLYGON_SNAPSHOT_DEPTH === "finalized" ? ("finalized" as const) : Number(e.POLYGON_SNAPSHOT_DEPTH),
    };
  });

export type PolygonRewardsConfig = z.output<typeof PolygonRewardsConfig>;
