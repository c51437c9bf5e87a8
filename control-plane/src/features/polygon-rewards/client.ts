import { type Address, BaseError, createPublicClient, http } from "viem";
import { z } from "zod";
import { bigintInRange, nodeAnswer } from "../../chains/node-values.ts";
import { AppError } from "../../errors.ts";
import { createUpstream, upstreamFailure } from "../../http/upstream.ts";
import {
  delegatorClaimedRewardsEvent,
  delegatorRestakedEvent,
  newHeaderBlockEvent,
  shareMintedEvent,
  stakeManagerAbi,
  validatorShareAbi,
} from "./abi.ts";

/** What the area reads of a ValidatorShare at one block: the APR snapshot (docs/chains/polygon-sui.md §1.5). */
export interface ShareState {
  block: bigint;
  timestamp: bigint;
  rewardPerShare: bigint;
  exchangeRate: bigint;
}

/** What one transaction moved out of a delegator's liquid rewards, wei of POL. */
export interface RewardMove {
  block: bigint;
  paid: bigint;
  restaked: bigint;
}

/** Which block counts as the chain's settled head: the node's `finalized`, or this many blocks below the latest. */
export type SnapshotDepth = "finalized" | number;

export interface PolygonL1 {
  /** The head at `depth` (default: the latest block). */
  head(depth?: SnapshotDepth): Promise<{ number: bigint; timestamp: bigint }>;
  blockTime(block: bigint): Promise<bigint>;
  /** `eth_chainId`. */
  chainId(): Promise<number>;
  /** The hash of block `block`, or null when the node has no such block. */
  blockHash(block: bigint): Promise<string | null>;
  validatorContract(stakeManager: Address, validatorId: bigint): Promise<Address>;
  /** `validatorId()`, or null when the address has no such function (not a ValidatorShare, or no code). */
  validatorId(validatorShare: Address): Promise<bigint | null>;
  /** `getLiquidRewards(delegator)` at `block` (default the latest), in wei of POL. */
  liquidRewards(validatorShare: Address, delegator: Address, block?: bigint): Promise<bigint>;
  /**
   * A delegator's reward movements with the validator in blocks [from, to]: rewards paid out to it and
   * rewards a restake turned into stake, per transaction, in block order.
   */
  rewardMoves(validatorId: bigint, delegator: Address, from: bigint, to: bigint): Promise<RewardMove[]>;
  /** `getRewardPerShare()` and `exchangeRate()` at `block` (an archive node is needed for old blocks). */
  shareState(validatorShare: Address, block: bigint): Promise<ShareState>;
  /** Blocks holding a checkpoint (`NewHeaderBlock` of `rootChain`) in [from, to]. */
  checkpointBlocks(rootChain: Address, from: bigint, to: bigint): Promise<bigint[]>;
}

/**
 * An EVM chain's identity (docs/architecture.md §13, "Chain identity"): its chain id and the hash of a
 * settled block. Without a recorded one, the anchor is the settled head at `depth`; with one, the node's
 * block at the recorded height is read (none there: another, shorter chain).
 */
export async function l1Identity(
  l1: PolygonL1,
  recorded: Record<string, string> | null,
  depth: SnapshotDepth,
): Promise<Record<string, string>> {
  const anchor =
    recorded?.anchor_block !== undefined ? BigInt(recorded.anchor_block) : (await l1.head(depth)).number;
  const [chainId, hash] = await Promise.all([l1.chainId(), l1.blockHash(anchor)]);
  return { chain_id: String(chainId), anchor_block: anchor.toString(), anchor_hash: hash ?? "none" };
}

/**
 * Ethereum L1 JSON-RPC through viem on the one outbound client: a timeout is a 504, a node that is down,
 * answers 5xx or not JSON a 502. A JSON-RPC error (a reverted call, "missing trie node" for a block the
 * node has pruned, an unknown method) is the node failing us as well: a 502 whose cause holds its words.
 */
export function createPolygonL1(opts: { rpcUrl: string; timeoutMs: number; maxBytes: number }): PolygonL1 {
  const upstream = createUpstream({ name: "Ethereum L1 node", ...opts });
  const client = createPublicClient({
    // Every read is of the chain as it is now: no block-number cache.
    cacheTime: 0,
    transport: http(opts.rpcUrl, { fetchFn: upstream.fetch, retryCount: 0, timeout: opts.timeoutMs }),
  });
  // viem decodes the node's hex quantities and ABI values (uint256 by construction); block numbers and times
  // go to `bigint` columns, so they are checked against that range like any node value.
  const Block = z.object({ number: bigintInRange(), timestamp: bigintInRange() });
  const checked = (b: unknown, what: string) => nodeAnswer(Block, b, { node: upstream.name, what });
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      throw (
        upstreamFailure(upstream.name, opts.timeoutMs, err) ??
        new AppError("UPSTREAM_UNAVAILABLE", `Ethereum L1 node could not answer ${what}`, { cause: err })
      );
    }
  };

  return {
    head: (depth = 0) =>
      call(depth === "finalized" ? "the finalized block" : "the latest block", async () => {
        let b = checked(
          await client.getBlock({ blockTag: depth === "finalized" ? "finalized" : "latest" }),
          "head block",
        );
        if (typeof depth === "number" && depth > 0)
          b = checked(
            await client.getBlock({
              blockNumber: b.number > BigInt(depth) ? b.number - BigInt(depth) : 0n,
            }),
            "block",
          );
        return { number: b.number, timestamp: b.timestamp };
      }),
    blockTime: (block) =>
      call(
        `block ${block}`,
        async () => checked(await client.getBlock({ blockNumber: block }), "block").timestamp,
      ),
    chainId: () => call("the chain id", () => client.getChainId()),
    blockHash: (block) =>
      call(`block ${block}`, async () => {
        try {
          return (await client.getBlock({ blockNumber: block })).hash.toLowerCase();
        } catch (err) {
          if (err instanceof BaseError && err.walk((e) => (e as Error).name === "BlockNotFoundError"))
            return null;
          throw err;
        }
      }),
    validatorContract: (stakeManager, validatorId) =>
      call("getValidatorContract", () =>
        client.readContract({
          address: stakeManager,
          abi: stakeManagerAbi,
          functionName: "getValidatorContract",
          args: [validatorId],
        }),
      ),
    validatorId: (validatorShare) =>
      call("validatorId", () =>
        client
          .readContract({ address: validatorShare, abi: validatorShareAbi, functionName: "validatorId" })
          .catch((err) => {
            // An empty answer (0x, no code there) or a revert (a contract without validatorId(), which a
            // ValidatorShare never does): not a ValidatorShare.
            const notOne =
              err instanceof BaseError &&
              err.walk((e) =>
                ["ContractFunctionZeroDataError", "ContractFunctionRevertedError"].includes(
                  (e as Error).name,
                ),
              ) !== null;
            if (notOne) return null;
            throw err;
          }),
      ),
    liquidRewards: (validatorShare, delegator, block) =>
      call("getLiquidRewards", () =>
        client.readContract({
          address: validatorShare,
          abi: validatorShareAbi,
          functionName: "getLiquidRewards",
          args: [delegator],
          ...(block === undefined ? { blockTag: "latest" as const } : { blockNumber: block }),
        }),
      ),
    rewardMoves: (validatorId, delegator, from, to) =>
      call("the delegator's reward events", async () => {
        const range = { args: { validatorId, user: delegator }, fromBlock: from, toBlock: to } as const;
        const [paid, minted, restaked] = await Promise.all([
          client.getLogs({ event: delegatorClaimedRewardsEvent, ...range }),
          client.getLogs({ event: shareMintedEvent, ...range }),
          client.getLogs({ event: delegatorRestakedEvent, ...range }),
        ]);
        const byTx = new Map<string, RewardMove>();
        const move = (l: { transactionHash: string | null; blockNumber: bigint | null }) => {
          const block = nodeAnswer(bigintInRange(), l.blockNumber, {
            node: upstream.name,
            what: "log block",
          });
          const key = l.transactionHash ?? `${block}`;
          const m = byTx.get(key) ?? { block, paid: 0n, restaked: 0n };
          byTx.set(key, m);
          return m;
        };
        for (const l of paid) move(l).paid += l.args.rewards ?? 0n;
        // A restake buys shares with the rewards; a new delegation's ShareMinted is its own POL.
        const restakes = new Set(restaked.map((l) => l.transactionHash));
        for (const l of minted) if (restakes.has(l.transactionHash)) move(l).restaked += l.args.amount ?? 0n;
        return [...byTx.values()].sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0));
      }),
    shareState: (validatorShare, block) =>
      call(`the ValidatorShare at block ${block}`, async () => {
        const at = { address: validatorShare, abi: validatorShareAbi, blockNumber: block } as const;
        const [b, rewardPerShare, exchangeRate] = await Promise.all([
          client.getBlock({ blockNumber: block }),
          client.readContract({ ...at, functionName: "getRewardPerShare" }),
          client.readContract({ ...at, functionName: "exchangeRate" }),
        ]);
        return { block, timestamp: checked(b, "block").timestamp, rewardPerShare, exchangeRate };
      }),
    checkpointBlocks: (rootChain, from, to) =>
      call("NewHeaderBlock logs", async () => {
        const logs = await client.getLogs({
          address: rootChain,
          event: newHeaderBlockEvent,
          fromBlock: from,
          toBlock: to,
        });
        const blocks = nodeAnswer(z.array(bigintInRange()), [...new Set(logs.map((l) => l.blockNumber))], {
          node: upstream.name,
          what: "NewHeaderBlock log",
        });
        return blocks.sort((a, b) => (a < b ? -1 : 1));
      }),
  };
}
