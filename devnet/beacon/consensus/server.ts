import "./preset.ts";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Address } from "viem";
import { type ExecutionNode, startExecutionNode } from "../execution.ts";
import { consensusApi } from "./api.ts";
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
  const withdrawalAddress = (i: number) =>
    `0x${Buffer.from(defaultWithdrawalCredentials(i).subarray(12)).toString("hex")}` as Address;
  let pubkeyOf = (_: number) => "";
  const el = execution
    ? anvilPayloads(execution, {
        ...(opts.builderShare !== undefined ? { builderShare: opts.builderShare } : {}),
        feeRecipient: withdrawalAddress,
        pubkey: (i) => pubkeyOf(i),
      })
    : undefined;
  const chain = createConsensusChain({
    network,
    secondsPerSlot,
    genesisTime,
    validators: opts.validators ?? 64,
    offline: opts.offline ?? [],
    ...(opts.extraGenesis ? { extraGenesis: opts.extraGenesis } : {}),
    ...(el ? { payloads: el.build } : {}),
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
  const server = createServer(consensusApi(chain));
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
    /** Makes the next `n` slots now (tests). */
    async advance(n = 1) {
      for (let i = 0; i < n; i++) await chain.produceSlot();
    },
    async close() {
      await chain.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await execution?.close();
    },
  };
}

export type ConsensusDevnet = Awaited<ReturnType<typeof startConsensusDevnet>>;
