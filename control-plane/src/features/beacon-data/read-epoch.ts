import type { Hex } from "viem";
import { withdrawalAddressOf } from "../../chains/beacon.ts";
import { DEPOSIT_EVENT_TOPIC, decodeDepositEvent } from "../../chains/deposit-contract.ts";
import { WEI_PER_GWEI } from "../../chains/evm.ts";
import { mapConcurrent } from "../../http/upstream.ts";
import type { BeaconApi, ChainSpec, ExecutionApi } from "./client.ts";
import {
  computeEpoch,
  type EpochData,
  type EpochInput,
  finishedConsolidations,
  type RequestRow,
  type SlotInput,
  type TrackedValidator,
} from "./epoch-rewards.ts";

export const SYSTEM_CONTRACTS = {
  withdrawals: "0x00000961ef480eb55e80d19ad83579a64c007002",
  consolidations: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
} as const;

/**
 * Reads epoch `epoch` from the nodes (every input of `computeEpoch`, the node round trips of all slots a
 * few at a time) and computes what it means for the tracked validators.
 */
export async function readEpoch(
  deps: { beacon: BeaconApi; execution: ExecutionApi; spec: ChainSpec; depositContract: string },
  epoch: number,
  tracked: TrackedValidator[],
): Promise<EpochData> {
  return computeEpoch(await fetchEpoch(deps, epoch, tracked));
}

/** The nodes' side of `readEpoch`: what `computeEpoch` needs, and nothing computed. */
export async function fetchEpoch(
  deps: { beacon: BeaconApi; execution: ExecutionApi; spec: ChainSpec; depositContract: string },
  epoch: number,
  tracked: TrackedValidator[],
): Promise<EpochInput> {
  const { beacon, execution, spec } = deps;
  const first = epoch * spec.slotsPerEpoch;
  const last = first + spec.slotsPerEpoch - 1;
  const pubkeys = tracked.map((t) => t.pubkey);
  const byPubkey = new Map(tracked.map((t) => [t.pubkey, t]));
  const before = pubkeys.length && first > 0;
  const [after, prev, pendingAfter, pendingBefore, consolidatingAfter, consolidatingBefore] =
    await Promise.all([
      beacon.validators(last, pubkeys),
      // Epoch 0 is measured from the genesis state: a genesis validator did not earn its balance in it.
      beacon.validators(first > 0 ? first - 1 : "genesis", pubkeys),
      pubkeys.length ? beacon.pendingDeposits(last) : Promise.resolve([]),
      before ? beacon.pendingDeposits(first - 1) : Promise.resolve([]),
      before ? beacon.pendingConsolidations(last) : Promise.resolve([]),
      before ? beacon.pendingConsolidations(first - 1) : Promise.resolve([]),
    ]);
  const trackedIndices = new Set(after.map((v) => Number(v.index)));
  // The counterpart of a tracked validator in a finished consolidation may be untracked: read by index.
  const known = new Set(prev.map((v) => v.index));
  const unknownSources = finishedConsolidations(consolidatingBefore, consolidatingAfter, trackedIndices)
    .map((c) => c.source_index)
    .filter((i) => !known.has(i));
  const untrackedSources = unknownSources.length ? await beacon.validators(first - 1, unknownSources) : [];

  const addresses = [
    deps.depositContract as Hex,
    SYSTEM_CONTRACTS.withdrawals,
    SYSTEM_CONTRACTS.consolidations,
  ];
  const slots = await mapConcurrent(
    Array.from({ length: spec.slotsPerEpoch }, (_, i) => first + i),
    8,
    async (slot): Promise<SlotInput> => {
      const [root, block] = await Promise.all([beacon.blockRoot(slot), beacon.block(slot)]);
      const hash = block?.message.body.execution_payload?.block_hash as Hex | undefined;
      if (!block || !hash || root === null) return { slot, root, block: null, proposed: null, requests: [] };
      const proposer = trackedIndices.has(Number(block.message.proposer_index));
      const [el, logs] = await Promise.all([
        proposer ? Promise.all([execution.block(hash), execution.receipts(hash)]) : null,
        execution.logs(hash, addresses),
      ]);
      const requests: RequestRow[] = [];
      for (const log of logs) {
        const row = await logTransaction(execution, log, deps.depositContract, byPubkey);
        if (row) requests.push(row);
      }
      const proposed = el && {
        baseFeePerGas: el[0].baseFeePerGas ?? null,
        transactions: el[0].transactions,
        receipts: el[1],
      };
      return { slot, root, block, proposed, requests };
    },
  );
  return {
    epoch,
    spec,
    tracked,
    validators: { before: prev, after },
    pendingDeposits: { before: pendingBefore, after: pendingAfter },
    pendingConsolidations: { before: consolidatingBefore, after: consolidatingAfter },
    untrackedSources,
    slots,
  };
}

/** A deposit or EIP-7002/7251 request log of a tracked validator as a transaction row (sans block fields). */
async function logTransaction(
  execution: ExecutionApi,
  log: {
    address: string;
    topics: readonly string[];
    data: string;
    transactionHash: string | null;
    logIndex: number | null;
  },
  depositContract: string,
  tracked: Map<string, TrackedValidator>,
): Promise<RequestRow | null> {
  const address = log.address.toLowerCase();
  let fields: Pick<
    RequestRow,
    "pubkey" | "type" | "sourcePubkey" | "targetPubkey" | "amountGwei" | "withdrawalCredentials"
  >;
  if (address === depositContract.toLowerCase() && log.topics[0] === DEPOSIT_EVENT_TOPIC) {
    fields = { ...decodeDepositEvent(log), type: "DEPOSIT", sourcePubkey: null, targetPubkey: null };
  } else if (address === SYSTEM_CONTRACTS.withdrawals && log.data.length === 2 + 76 * 2) {
    const amount = BigInt(`0x${log.data.slice(138)}`);
    const pubkey = `0x${log.data.slice(42, 138)}`;
    fields = {
      pubkey,
      type: amount === 0n ? "FULL_WITHDRAWAL" : "PARTIAL_EXIT",
      sourcePubkey: null,
      targetPubkey: null,
      amountGwei: amount,
      withdrawalCredentials: null,
    };
  } else if (address === SYSTEM_CONTRACTS.consolidations && log.data.length === 2 + 116 * 2) {
    const source = `0x${log.data.slice(42, 138)}`;
    const target = `0x${log.data.slice(138)}`;
    fields = {
      pubkey: source,
      type: source === target ? "SWITCH" : "CONSOLIDATE",
      sourcePubkey: source,
      targetPubkey: target,
      amountGwei: 0n,
      withdrawalCredentials: null,
    };
  } else return null;
  fields.pubkey = fields.pubkey.toLowerCase();
  if (!tracked.has(fields.pubkey) || !log.transactionHash) return null;
  const hash = log.transactionHash as Hex;
  const [tx, receipt] = await Promise.all([execution.transaction(hash), execution.receipt(hash)]);
  return {
    ...fields,
    uid: `el:${hash}:${log.logIndex}`,
    layer: "EXECUTION_LAYER",
    transactionHash: hash,
    data: tx.input,
    feeGwei: (receipt.gasUsed * receipt.effectiveGasPrice) / WEI_PER_GWEI,
    from: tx.from.toLowerCase(),
    to: (tx.to ?? address).toLowerCase(),
    withdrawalAddress: fields.withdrawalCredentials
      ? withdrawalAddressOf(fields.withdrawalCredentials)
      : tx.from.toLowerCase(),
  };
}
