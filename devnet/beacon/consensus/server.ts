import "./preset.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SecretKey } from "@chainsafe/lodestar-z/blst";
import { SLOTS_PER_EPOCH } from "@lodestar/params";
import type { Address } from "viem";
import { type ExecutionNode, startExecutionNode } from "../execution.ts";
import { consensusApi, type NodeState } from "./api.ts";
import { createConsensusChain, defaultWithdrawalCredentials, type ExtraGenesisValidator } from "./chain.ts";
import type { DevnetNetwork } from "./config.ts";
import { anvilPayloads } from "./payload.ts";

/** The real networks' constants (docs/chains/ethereum.md §1.4), so exits signed for them verify here. */
export const NETWORKS: Record<"mainnet" | "hoodi", DevnetNetwork> = {
  mainnet: {
    genesisForkVersion: "0x00000000",
    capellaForkVersion: "0x03000000",
    genesisValidatorsRoot: "0x4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95",
    chainId: 1,
  },
  hoodi: {
    genesisForkVersion: "0x10000910",
    capellaForkVersion: "0x40000910",
    genesisValidatorsRoot: "0x212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f",
    chainId: 560048,
  },
};

export interface ConsensusDevnetOptions {
  port?: number;
  network?: "mainnet" | "hoodi";
  /** Start anvil as the execution node: every payload a real block, its requests the block's. */
  execution?: boolean;
  executionPort?: number;
  validators?: number;
  offline?: number[];
  secondsPerSlot?: number;
  /** Make slots at their wall-clock time (npm start); tests call `advance` instead. */
  realTime?: boolean;
  builderShare?: number;
  /** Genesis validators after the interop ones (chain.ts). */
  extraGenesis?: ExtraGenesisValidator[];
  /** Whether `reorg` may replace slots with an execution node (it keeps an anvil snapshot a slot). */
  reorgs?: boolean;
  /**
   * A custom genesis (as a devnet's genesis file sets it): validator `i`'s balance in gwei (default 32 ETH)
   * and withdrawal credentials (default 0x01 with the address `defaultWithdrawalCredentials` gives).
   */
  genesisBalance?: (index: number) => number;
  withdrawalCredentials?: (index: number) => Uint8Array;
  /**
   * The first Electra epoch (default 0: Electra from genesis). Above 0 the chain starts as Deneb, as a
   * network's history before the fork does; Lodestar's `processSlots` upgrades its state at that epoch.
   */
  electraForkEpoch?: number;
}

/**
 * A beacon node whose chain is Lodestar's state transition (chain.ts) behind the Beacon API (api.ts), with
 * anvil as its execution layer when `execution` is set.
 */
export async function startConsensusDevnet(opts: ConsensusDevnetOptions = {}) {
  const network = NETWORKS[opts.network ?? "hoodi"];
  const execution: ExecutionNode | undefined = opts.execution
    ? await startExecutionNode({
        chainId: network.chainId,
        ...(opts.executionPort ? { port: opts.executionPort } : {}),
      })
    : undefined;
  const elHead = execution ? await execution.public.getBlock() : undefined;
  const secondsPerSlot = opts.secondsPerSlot ?? 2;
  const genesisTime = elHead ? Number(elHead.timestamp) + 1 : Math.floor(Date.now() / 1000);
  const credentials = opts.withdrawalCredentials ?? defaultWithdrawalCredentials;
  // A validator client's fee recipient: its withdrawal address unless the test configured another.
  const feeRecipients = new Map<string, Address>();
  const feeRecipient = (i: number) =>
    feeRecipients.get(pubkeyOf(i)) ??
    (`0x${Buffer.from(chain.headState().validators.getReadonly(i).withdrawalCredentials.subarray(12)).toString("hex")}` as Address);
  let pubkeyOf = (_: number) => "";
  /** The next proposals' builder choice (`advance`'s `builder`), else `builderShare` decides. */
  let builderChoice: (proposerIndex: number) => boolean | undefined = () => undefined;
  const el = execution
    ? anvilPayloads(execution, {
        ...(opts.builderShare !== undefined ? { builderShare: opts.builderShare } : {}),
        feeRecipient,
        pubkey: (i) => pubkeyOf(i),
        builder: (i) => builderChoice(i),
        ...(opts.reorgs ? { reorgs: true } : {}),
      })
    : undefined;
  const chain = createConsensusChain({
    network,
    secondsPerSlot,
    genesisTime,
    validators: opts.validators ?? 64,
    offline: opts.offline ?? [],
    withdrawalCredentials: credentials,
    ...(opts.genesisBalance ? { genesisBalance: opts.genesisBalance } : {}),
    ...(opts.extraGenesis ? { extraGenesis: opts.extraGenesis } : {}),
    ...(opts.electraForkEpoch !== undefined ? { electraForkEpoch: opts.electraForkEpoch } : {}),
    ...(el ? { payloads: el.build, rewindPayloads: el.rewind } : {}),
    ...(elHead
      ? {
          executionGenesis: {
            blockHash: Uint8Array.from(Buffer.from(elHead.hash.slice(2), "hex")),
            blockNumber: Number(elHead.number),
            timestamp: Number(elHead.timestamp),
          },
        }
      : {}),
  });
  pubkeyOf = (i) => `0x${Buffer.from(chain.pubkeyCache.getPubkeyBytesOrThrow(i)).toString("hex")}`;
  const node: NodeState = {
    optimistic: false,
    requests: new Map(),
    ...(execution ? { executionUrl: execution.url } : {}),
  };
  const server = createServer(consensusApi(chain, node));
  // Longer than a client's pause between requests while slots are made (seconds under load): Node's 5 s
  // default closes idle keep-alive sockets, and a request the client sends on one as it closes is reset.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  if (opts.realTime) chain.start();
  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    execution,
    /** What each proposer received on the execution layer, by slot (with an execution node). */
    payments: el?.payments,
    /** Validator `index`'s pubkey, 0x-hex. */
    pubkeyOf: (index: number) => pubkeyOf(index),
    /** Requests served per path. */
    requests: node.requests,
    setOptimistic(on: boolean) {
      node.optimistic = on;
    },
    /** Unix time of `slot`. */
    slotTime: (slot: number) => genesisTime + slot * secondsPerSlot,
    finalizedEpoch: () => chain.headState().finalizedCheckpoint.epoch,
    /** The fee recipient the validator of `pubkey` puts in its payloads from now on. */
    setFeeRecipient(pubkey: string, address: Address) {
      feeRecipients.set(pubkey.toLowerCase(), address);
    },
    /** The validator client imports a key (32 bytes, an EIP-2335 keystore's secret). */
    importKey: (secret: Uint8Array) => chain.importKey(SecretKey.fromBytes(secret)),
    /** The registry index of `pubkey` in the head state (undefined: not deposited yet). */
    indexOf: (pubkey: string) =>
      chain.headState().epochCtx.getValidatorIndex(Buffer.from(pubkey.replace(/^0x/, ""), "hex")) ??
      undefined,
    /**
     * Makes the next `n` slots now (tests); `builder` makes their blocks builder (MEV-boost) or local ones,
     * as a proposer choosing whether to take a relay's bid.
     */
    async advance(n = 1, o: { builder?: boolean } = {}) {
      builderChoice = () => o.builder;
      try {
        for (let i = 0; i < n; i++) await chain.produceSlot();
      } finally {
        builderChoice = () => undefined;
      }
    },
    /** Makes slots up to the last slot of `epoch`. */
    async advanceToEndOfEpoch(epoch: number) {
      while (chain.head < (epoch + 1) * SLOTS_PER_EPOCH - 1) await chain.produceSlot();
    },
    /**
     * Makes slots until validator `index` has proposed a block (its proposer duty comes by the chain's
     * shuffling, as on any chain); returns the block's slot.
     */
    async advanceUntilProposal(index: number, o: { builder?: boolean } = {}) {
      builderChoice = (i) => (i === index ? o.builder : undefined);
      try {
        for (let i = 0; i < 64 * SLOTS_PER_EPOCH; i++) {
          const block = await chain.produceSlot();
          if (block?.message.proposerIndex === index) return block.message.slot;
        }
      } finally {
        builderChoice = () => undefined;
      }
      throw new Error(`validator ${index} proposed no block in 64 epochs`);
    },
    reorg: (depth: number) => chain.reorg(depth),
    async close() {
      await chain.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await execution?.close();
    },
  };
}

export type ConsensusDevnet = Awaited<ReturnType<typeof startConsensusDevnet>>;
