import {
  type Abi,
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseAbi,
  parseEther,
  toHex,
} from "viem";
import { ANVIL_ACCOUNTS, startAnvil } from "../evm/anvil.ts";
import { type Compiled, compileSolidity } from "../evm/solc.ts";

/**
 * A simulated Ethereum L1 for the Polygon rewards area: anvil (no automine: the devnet mines every
 * transaction alone in a block whose timestamp it chooses) with the staking contracts of contracts/PolygonStaking.sol deployed at
 * Sepolia's StakeManagerProxy and RootChainProxy addresses (docs/chains/polygon-sui.md §1.1), so the
 * control plane's testnet defaults point at it with no override. Validators 16–19, the operator is 18
 * (Luganodes' id on mainnet); checkpoints are submitted with chosen timestamps, so weeks of history take
 * seconds.
 */

export const DEVNET_STAKE_MANAGER: Address = "0x4ae8f648b1ec892b6cc68c89cc088583964d08be";
export const DEVNET_ROOT_CHAIN: Address = "0xbd07d7e1e93c8d4b2a261327f3c28a8ea7167209";
export const OPERATOR_ID = 18n;
/** Bor blocks per checkpoint: StakeManager's `checkPointBlockInterval`, so each pays one CHECKPOINT_REWARD. */
export const BOR_BLOCKS_PER_CHECKPOINT = 1024n;
const YEAR_S = 31_536_000n;

export const ROLES = {
  deployer: ANVIL_ACCOUNTS[0],
  validators: [ANVIL_ACCOUNTS[1], ANVIL_ACCOUNTS[2], ANVIL_ACCOUNTS[3], ANVIL_ACCOUNTS[4]],
  /** Delegators of the operator's ValidatorShare; the last one delegates to validator 17 only. */
  delegators: [ANVIL_ACCOUNTS[5], ANVIL_ACCOUNTS[6], ANVIL_ACCOUNTS[7], ANVIL_ACCOUNTS[8]],
} as const;

const userAbi = parseAbi([
  "function approve(address spender, uint256 amount) returns (bool)",
  "function mint(address to, uint256 amount)",
  "function balanceOf(address) view returns (uint256)",
  "function stakeFor(address user, uint256 amount, bool acceptDelegation) returns (uint256)",
  "function updateCommissionRate(uint256 validatorId, uint256 newCommissionRate)",
  "function setRootChain(address rootChain)",
  "function getValidatorContract(uint256 validatorId) view returns (address)",
  "function buyVoucherPOL(uint256 amount, uint256 minSharesToMint) returns (uint256)",
  "function restakePOL() returns (uint256, uint256)",
  "function withdrawRewardsPOL()",
  "function submitCheckpoint(uint256 proposerId, uint256 end, bytes32 root, uint256[] signerIds)",
]);

let compiled: Record<"DevPOL" | "StakeManager" | "RootChain", Compiled> | undefined;
function contracts() {
  compiled ??= compileSolidity([new URL("./contracts/PolygonStaking.sol", import.meta.url)], {
    DevPOL: "PolygonStaking.sol",
    StakeManager: "PolygonStaking.sol",
    RootChain: "PolygonStaking.sol",
  });
  return compiled;
}

export interface DevnetOptions {
  port?: number;
  /** Unix seconds of the first block (default: now). */
  genesis?: number;
  /** Keep only this many past states, as a full node does (default: every state, as an archive node). */
  pruneHistory?: number;
  /** Seconds between checkpoints (default 2040, mainnet's ~34 min); sets CHECKPOINT_REWARD to match. */
  checkpointSeconds?: number;
  /** Between transactions the devnet mines an empty block every this many seconds (default 3600). */
  blockSeconds?: number;
}

export async function startPolygonDevnet(opts: DevnetOptions = {}) {
  const genesis = opts.genesis ?? Math.floor(Date.now() / 1000);
  const checkpointSeconds = BigInt(opts.checkpointSeconds ?? 2040);
  const blockSeconds = opts.blockSeconds ?? 3600;
  const anvil = await startAnvil(
    [
      "--chain-id",
      "1337",
      "--timestamp",
      String(genesis),
      "--hardfork",
      "prague",
      "--no-mining",
      ...(opts.pruneHistory !== undefined ? ["--prune-history", String(opts.pruneHistory)] : []),
    ],
    opts.port ?? 0,
  );
  const transport = http(anvil.url, { retryCount: 0 });
  const pub = createPublicClient({ transport, cacheTime: 0 });
  const test = createTestClient({ mode: "anvil", transport });
  const wallet = createWalletClient({ transport });
  let clock = genesis;

  /** Empty blocks every `blockSeconds` up to before `at`, so every hour of history has a block. */
  async function fill(at: number) {
    const blocks = Math.floor((at - 1 - clock) / blockSeconds);
    if (blocks <= 0) return;
    await test.mine({ blocks, interval: blockSeconds });
    clock += blocks * blockSeconds;
  }

  /**
   * Sends one transaction mined alone in a block with timestamp `at` (default: one second later). The
   * devnet mines the block itself rather than letting anvil automine: viem's receipt watcher only looks
   * again when the block number changes, and misses an automined block that lands while it is between two
   * looks, so with nothing else mining it waited for its 180 s timeout (seen under load). Sends are
   * serialized: each one owns the clock and the next block's timestamp until its block is mined.
   */
  let last: Promise<unknown> = Promise.resolve();
  function send(from: Address, to: Address | null, data: Hex, at?: number) {
    const mined = last.then(async () => {
      if (at !== undefined) await fill(at);
      clock = Math.max(clock + 1, at ?? clock + 1);
      const hash = await wallet.sendTransaction({ chain: null, account: from, to, data, gas: 5_000_000n });
      await test.setNextBlockTimestamp({ timestamp: BigInt(clock) });
      await test.mine({ blocks: 1 });
      const receipt = await pub.getTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`devnet transaction reverted (${data.slice(0, 10)})`);
      return receipt;
    });
    last = mined.catch(() => {});
    return mined;
  }
  const call = (from: Address, to: Address, functionName: string, args: unknown[], at?: number) =>
    send(from, to, encode(functionName, args), at);

  // Deployed normally, then moved to Sepolia's addresses with their storage (no state changed yet).
  const { DevPOL, StakeManager, RootChain } = contracts();
  const deploy = async (c: Compiled, args: unknown[] = []) => {
    const r = await send(
      ROLES.deployer,
      null,
      encodeDeployData({ abi: c.abi as Abi, bytecode: c.bytecode, args }),
    );
    if (!r.contractAddress) throw new Error("deployment failed");
    return r.contractAddress;
  };
  const moveTo = async (from: Address, to: Address) => {
    await test.setCode({ address: to, bytecode: (await pub.getCode({ address: from })) ?? "0x" });
    for (let slot = 0; slot < 32; slot++) {
      const value = await pub.getStorageAt({ address: from, slot: toHex(slot, { size: 32 }) });
      if (value && BigInt(value) !== 0n) await test.setStorageAt({ address: to, index: slot, value });
    }
  };
  const pol = await deploy(DevPOL);
  // CHECKPOINT_REWARD such that the network pays 230,000 POL a year over 4.6 M POL staked (~5 % gross).
  const checkpointReward = (parseEther("230000") * checkpointSeconds) / YEAR_S;
  await moveTo(await deploy(StakeManager, [pol, checkpointReward, 16n]), DEVNET_STAKE_MANAGER);
  await moveTo(await deploy(RootChain, [DEVNET_STAKE_MANAGER]), DEVNET_ROOT_CHAIN);
  await call(ROLES.deployer, DEVNET_STAKE_MANAGER, "setRootChain", [DEVNET_ROOT_CHAIN]);
  // The StakeManager pays rewards out of its own balance.
  await call(ROLES.deployer, pol, "mint", [DEVNET_STAKE_MANAGER, parseEther("100000000")]);
  for (const who of [...ROLES.validators, ...ROLES.delegators]) {
    await call(ROLES.deployer, pol, "mint", [who, parseEther("10000000")]);
    await call(who, pol, "approve", [DEVNET_STAKE_MANAGER, 2n ** 256n - 1n]);
  }
  const ownStake = [1_200_000, 1_000_000, 500_000, 1_000_000];
  for (const [i, who] of ROLES.validators.entries()) {
    await call(who, DEVNET_STAKE_MANAGER, "stakeFor", [who, parseEther(String(ownStake[i])), true]);
  }
  const shareOf = async (id: bigint) =>
    (await pub.readContract({
      address: DEVNET_STAKE_MANAGER,
      abi: userAbi,
      functionName: "getValidatorContract",
      args: [id],
    })) as Address;
  const validatorShare = await shareOf(OPERATOR_ID);
  const otherShare = await shareOf(17n);
  const operator = ROLES.validators[2];
  await call(operator, DEVNET_STAKE_MANAGER, "updateCommissionRate", [OPERATOR_ID, 5n]);
  let borBlock = 0n;

  return {
    url: anvil.url,
    public: pub,
    pol,
    stakeManager: DEVNET_STAKE_MANAGER,
    rootChain: DEVNET_ROOT_CHAIN,
    validatorShare,
    otherShare,
    operatorId: OPERATOR_ID,
    checkpointSeconds: Number(checkpointSeconds),
    /** Unix seconds of the last block. */
    now: () => clock,

    /**
     * One checkpoint at `at`; `signers` default to every validator, proposer the first signer. It covers
     * `borBlocks` Bor blocks (default: a full interval, one CHECKPOINT_REWARD; fewer pay proportionally).
     */
    async checkpoint(
      args: { at?: number | undefined; signers?: bigint[] | undefined; borBlocks?: bigint } = {},
    ) {
      const signers = args.signers ?? [16n, 17n, 18n, 19n];
      borBlock += args.borBlocks ?? BOR_BLOCKS_PER_CHECKPOINT;
      return call(
        ROLES.deployer,
        DEVNET_ROOT_CHAIN,
        "submitCheckpoint",
        [signers[0], borBlock - 1n, keccak256(toHex(borBlock)), signers],
        args.at,
      );
    },
    delegate: (who: Address, pol: string, at?: number, share: Address = validatorShare) =>
      call(who, share, "buyVoucherPOL", [parseEther(pol), 0n], at),
    claim: (who: Address, at?: number) => call(who, validatorShare, "withdrawRewardsPOL", [], at),
    restake: (who: Address, at?: number) => call(who, validatorShare, "restakePOL", [], at),
    setCommission: (percent: bigint, at?: number) =>
      call(operator, DEVNET_STAKE_MANAGER, "updateCommissionRate", [OPERATOR_ID, percent], at),
    polBalance: (who: Address) =>
      pub.readContract({ address: pol, abi: userAbi, functionName: "balanceOf", args: [who] }),
    close: anvil.close,
  };
}

function encode(functionName: string, args: unknown[]): Hex {
  return encodeFunctionData({ abi: userAbi, functionName, args } as never);
}

export type PolygonDevnet = Awaited<ReturnType<typeof startPolygonDevnet>>;
