import {
  type Address,
  createPublicClient,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  getContractAddress,
  type Hex,
  http,
  type Log,
  parseGwei,
} from "viem";
import { ANVIL_ACCOUNTS, startAnvil } from "../evm/anvil.ts";
import {
  CONSOLIDATION_REQUEST_CODE,
  CONSOLIDATION_REQUEST_CONTRACT,
  compileContracts,
  DEPOSIT_CONTRACT,
  WITHDRAWAL_REQUEST_CODE,
  WITHDRAWAL_REQUEST_CONTRACT,
} from "./contracts.ts";

/**
 * Where the devnet's batch depositor lands: the deployer's second contract (nonce 1), the same on every
 * start, so `npm start` can configure ETH_BATCH_DEPOSITOR before the devnet is up.
 */
export const DEVNET_BATCH_DEPOSITOR = getContractAddress({
  from: ANVIL_ACCOUNTS[0],
  nonce: 1n,
}).toLowerCase();

/** The beacon devnet's roles among anvil's dev accounts. */
export const DEV_ACCOUNTS = {
  deployer: ANVIL_ACCOUNTS[0],
  user: ANVIL_ACCOUNTS[1],
  builder: ANVIL_ACCOUNTS[9],
  /** A second builder, so a payment is told apart by the block's own coinbase, not a known address. */
  builder2: ANVIL_ACCOUNTS[8],
  traffic: ANVIL_ACCOUNTS[7],
} as const satisfies Record<string, Address>;

/** The builders of builder blocks, chosen per slot. */
export const BUILDERS = [DEV_ACCOUNTS.builder, DEV_ACCOUNTS.builder2] as const;

export interface ExecutionBlock {
  number: number;
  hash: Hex;
  parentHash: Hex;
  timestamp: number;
  feeRecipient: Address;
  logs: Log[];
  /** The rest of the block as an execution payload carries it (Beacon API JSON, numbers as decimal strings). */
  payload: {
    state_root: Hex;
    receipts_root: Hex;
    logs_bloom: Hex;
    prev_randao: Hex;
    gas_limit: string;
    gas_used: string;
    extra_data: Hex;
    base_fee_per_gas: string;
    transactions: Hex[];
    blob_gas_used: string;
    excess_blob_gas: string;
  };
  /**
   * What the proposer's fee recipient received in this block, measured by the devnet itself: on a builder
   * block the builder's payment (and no priority fee: those go to the builder), on a local block the priority
   * fees of its transactions (Σ gasUsed × (effectiveGasPrice − baseFee), from the node's receipts).
   */
  paid: { builder: Address | null; mevWei: bigint; priorityFeeWei: bigint };
}

/**
 * A real EVM (anvil, Prague rules, no automine) with the deposit contract at its canonical address and the
 * EIP-7002/7251 predeploys. The beacon devnet mines one block per slot with the slot's timestamp, so every
 * execution payload it serves is a real block.
 */
export async function startExecutionNode(opts: { chainId: number; port?: number }) {
  const anvil = await startAnvil(
    [
      "--no-mining",
      // Arrival order: a builder block's payment, sent last, is its last transaction as builders make it
      // (the indexer finds MEV there), whatever tip a user's transaction in the same block offers.
      "--order",
      "fifo",
      "--hardfork",
      "prague",
      "--chain-id",
      String(opts.chainId),
      "--timestamp",
      String(Math.floor(Date.now() / 1000) - 1),
    ],
    opts.port ?? 0,
  );
  const url = anvil.url;
  const transport = http(url, { retryCount: 0 });
  const pub = createPublicClient({ transport });
  const test = createTestClient({ mode: "anvil", transport });
  const wallet = createWalletClient({ transport });
  const chain = { id: opts.chainId } as const;

  async function mine(timestamp: number): Promise<void> {
    await test.setNextBlockTimestamp({ timestamp: BigInt(timestamp) });
    await test.mine({ blocks: 1 });
  }

  // Deploy the deposit contract, then copy its code and storage (the constructor's zero hashes) to the
  // canonical address, so clients use the address of the real networks with no override.
  const { DepositContract, BatchDepositor } = compileContracts();
  const deployHash = await wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.deployer,
    data: DepositContract.bytecode,
  });
  await test.mine({ blocks: 1 });
  const deployed = (await pub.getTransactionReceipt({ hash: deployHash })).contractAddress;
  if (!deployed) throw new Error("deposit contract deployment failed");
  await test.setCode({
    address: DEPOSIT_CONTRACT,
    bytecode: (await pub.getCode({ address: deployed })) ?? "0x",
  });
  for (let slot = 0n; slot < 66n; slot++) {
    const value = await pub.getStorageAt({ address: deployed, slot: `0x${slot.toString(16)}` });
    if (value && BigInt(value) !== 0n) {
      await test.setStorageAt({ address: DEPOSIT_CONTRACT, index: Number(slot), value });
    }
  }
  await test.setCode({ address: WITHDRAWAL_REQUEST_CONTRACT, bytecode: WITHDRAWAL_REQUEST_CODE });
  await test.setCode({ address: CONSOLIDATION_REQUEST_CONTRACT, bytecode: CONSOLIDATION_REQUEST_CODE });
  const batchHash = await wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.deployer,
    data: encodeDeployData({
      abi: BatchDepositor.abi,
      bytecode: BatchDepositor.bytecode,
      args: [DEPOSIT_CONTRACT],
    }),
  });
  await test.mine({ blocks: 1 });
  const batchDepositor = (await pub.getTransactionReceipt({ hash: batchHash })).contractAddress;
  if (batchDepositor?.toLowerCase() !== DEVNET_BATCH_DEPOSITOR)
    throw new Error("batch depositor deployment failed");

  return {
    url,
    chainId: opts.chainId,
    depositContract: DEPOSIT_CONTRACT as Address,
    batchDepositor,
    public: pub,
    wallet,
    test,
    chain,

    /**
     * Mines the block of one slot: background traffic paying a priority fee, then (for a builder block) the
     * builder's payment to the proposer's fee recipient as the last transaction. `coinbase` is the payload's
     * fee recipient: the proposer's for a local block, the builder's for a builder block.
     */
    async produceBlock(args: {
      timestamp: number;
      feeRecipient: Address;
      builderPaymentWei?: bigint;
      /** The builder of a builder block (default the first). */
      builder?: Address;
      trafficTxs: number;
      tipGwei: number;
    }): Promise<ExecutionBlock> {
      const builder = args.builderPaymentWei ? (args.builder ?? DEV_ACCOUNTS.builder) : null;
      const coinbase = builder ?? args.feeRecipient;
      await test.setCoinbase({ address: coinbase });
      for (let i = 0; i < args.trafficTxs; i++) {
        await wallet.sendTransaction({
          chain: null,
          account: DEV_ACCOUNTS.traffic,
          to: DEV_ACCOUNTS.deployer,
          value: 1n,
          maxPriorityFeePerGas: parseGwei(String(args.tipGwei)),
          maxFeePerGas: parseGwei("500"),
        });
      }
      if (args.builderPaymentWei) {
        // Sent last (anvil orders by arrival), so it is the block's last transaction, as builders do.
        await wallet.sendTransaction({
          chain: null,
          account: builder as Address,
          to: args.feeRecipient,
          value: args.builderPaymentWei,
          maxPriorityFeePerGas: 0n,
          maxFeePerGas: parseGwei("500"),
        });
      }
      await mine(args.timestamp);
      const block = await pub.getBlock({ blockTag: "latest" });
      const [logs, receipts, transactions] = await Promise.all([
        pub.getLogs({ blockHash: block.hash }),
        pub.getBlockReceipts({ blockHash: block.hash }),
        Promise.all(
          block.transactions.map(
            (hash) =>
              pub.request({
                method: "eth_getRawTransactionByHash" as never,
                params: [hash] as never,
              }) as Promise<Hex>,
          ),
        ),
      ]);
      const baseFee = block.baseFeePerGas ?? 0n;
      let priorityFeeWei = 0n;
      for (const r of receipts) priorityFeeWei += r.gasUsed * (r.effectiveGasPrice - baseFee);
      return {
        number: Number(block.number),
        hash: block.hash,
        parentHash: block.parentHash,
        timestamp: Number(block.timestamp),
        feeRecipient: block.miner,
        logs,
        payload: {
          state_root: block.stateRoot,
          receipts_root: block.receiptsRoot,
          logs_bloom: block.logsBloom ?? `0x${"00".repeat(256)}`,
          prev_randao: block.mixHash,
          gas_limit: String(block.gasLimit),
          gas_used: String(block.gasUsed),
          extra_data: block.extraData,
          base_fee_per_gas: String(baseFee),
          transactions,
          blob_gas_used: String(block.blobGasUsed ?? 0n),
          excess_blob_gas: String(block.excessBlobGas ?? 0n),
        },
        paid: builder
          ? { builder, mevWei: args.builderPaymentWei ?? 0n, priorityFeeWei: 0n }
          : { builder: null, mevWei: 0n, priorityFeeWei },
      };
    },

    /** Credits a withdrawal (the consensus layer's balance increase has no transaction). */
    async credit(address: Address, wei: bigint) {
      const balance = await pub.getBalance({ address, blockTag: "pending" });
      await test.setBalance({ address, value: balance + wei });
    },

    snapshot: () => test.snapshot(),
    revert: (id: Hex) => test.revert({ id }),

    close: anvil.close,
  };
}

export type ExecutionNode = Awaited<ReturnType<typeof startExecutionNode>>;
