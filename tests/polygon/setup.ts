import { type Address, parseAbi } from "viem";
import { createPolygonL1 } from "../../control-plane/src/features/polygon-rewards/client.ts";
import { createPolygonSnapshotter } from "../../control-plane/src/features/polygon-rewards/indexer.ts";
import { createPolygonIndexerRepo } from "../../control-plane/src/features/polygon-rewards/indexer-repo.ts";
import { createValidatorShareResolver } from "../../control-plane/src/features/polygon-rewards/validator.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { buildHistory } from "../../devnet/polygon/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

/**
 * The simulated L1 with `days` of history (checkpoints every 6 h to keep it fast), the real control plane
 * pointed at it by its testnet defaults (the devnet sits at Sepolia's addresses), a snapshotter like the
 * worker's, and an approved organisation's key.
 */
export async function startPolygonEnv(
  opts: { days?: number; pruneHistory?: number; env?: Record<string, string> } = {},
) {
  const { devnet, history } = await buildHistory({
    days: opts.days ?? 31,
    checkpointSeconds: 6 * 3600,
    ...(opts.pruneHistory !== undefined ? { pruneHistory: opts.pruneHistory } : {}),
  });
  // Snapshots at the head itself unless a test says otherwise: the devnet mines only when it is told to, so
  // its `finalized` block (64 below the head, anvil's rule) would hold back every new checkpoint.
  const h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "polygon-rewards",
    POLYGON_L1_RPC_URL: devnet.url,
    POLYGON_SNAPSHOT_DEPTH: "0",
    ...opts.env,
  });
  const l1 = createPolygonL1({ ...h.config.polygon, maxBytes: h.config.nodeResponseMaxBytes });
  const logger = createLogger({ level: "silent", service: "test" });
  const snapshotter = createPolygonSnapshotter({
    l1,
    repo: createPolygonIndexerRepo(h.db),
    resolver: createValidatorShareResolver({ l1, ...h.config.polygon }),
    rootChain: h.config.polygon.rootChain,
    snapshotIntervalS: h.config.polygon.snapshotIntervalS,
    snapshotDepth: h.config.polygon.snapshotDepth,
    chain: { db: h.db, policy: h.config.chainResetPolicy, logger },
    logger,
  });
  const org = await makeOrganisation(h.db);
  return {
    devnet,
    history,
    h,
    snapshotter,
    key: org.apiKey,
    async close() {
      await h.close();
      await devnet.close();
    },
  };
}
export type PolygonEnv = Awaited<ReturnType<typeof startPolygonEnv>>;

/** Raw views for the tests' own arithmetic, read with plain `eth_call`s (not the area's client). */
export const rawAbi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function totalSupply() view returns (uint256)",
  "function rewardPerShare() view returns (uint256)",
  "function initalRewardPerShare(address) view returns (uint256)",
  "function getRewardPerShare() view returns (uint256)",
  "function exchangeRate() view returns (uint256)",
  "function getTotalStake(address) view returns (uint256, uint256)",
  "function delegatorsReward(uint256) view returns (uint256)",
  "function delegatedAmount(uint256) view returns (uint256)",
  "function validatorStake(uint256) view returns (uint256)",
  "function CHECKPOINT_REWARD() view returns (uint256)",
  "function currentValidatorSetTotalStake() view returns (uint256)",
  "function validators(uint256) view returns (uint256 amount, uint256 reward, uint256 activationEpoch, uint256 deactivationEpoch, uint256 jailTime, address signer, address contractAddress, uint8 status, uint256 commissionRate, uint256 lastCommissionUpdate, uint256 delegatorsReward, uint256 delegatedAmount, uint256 initialRewardPerStake)",
]);

export function reader(env: PolygonEnv) {
  const pub = env.devnet.public;
  return <F extends (typeof rawAbi)[number]["name"]>(
    address: Address,
    functionName: F,
    args: readonly unknown[] = [],
    blockNumber?: bigint,
  ) =>
    pub.readContract({
      address,
      abi: rawAbi,
      functionName,
      args,
      ...(blockNumber === undefined ? {} : { blockNumber }),
    } as never) as Promise<never>;
}
