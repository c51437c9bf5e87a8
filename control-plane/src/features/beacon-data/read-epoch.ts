import { createHash } from "node:crypto";
import type { Hex } from "viem";
import { withdrawalAddressOf } from "../../chains/beacon.ts";
import { DEPOSIT_EVENT_TOPIC, decodeDepositEvent } from "../../chains/deposit-contract.ts";
import {
  decodeConsolidationRequestLog,
  decodeWithdrawalRequestLog,
  EL_REQUEST_LOG_ADDRESSES as SYSTEM_CONTRACTS,
} from "../../chains/el-requests.ts";
import { WEI_PER_GWEI } from "../../chains/evm.ts";
import { mapConcurrent } from "../../http/upstream.ts";
import type {
  ApiPendingConsolidation,
  ApiPendingDeposit,
  ApiValidator,
  BeaconApi,
  ChainSpec,
  ExecutionApi,
} from "./client.ts";
import {
  computeEpoch,
  type EpochData,
  type EpochInput,
  finishedConsolidations,
  type RequestRow,
  type SlotInput,
  type TrackedValidator,
} from "./epoch-rewards.ts";
import { attestationRewards, fetchNodeParts, withBreakdown } from "./reward-breakdown.ts";

/** The beacon reads of an epoch: answers the node marks optimistic throw (client.ts `OptimisticAnswer`). */
type BeaconReads = BeaconApi["verified"];
export interface EpochReadDeps {
  beacon: BeaconReads;
  execution: ExecutionApi;
  spec: ChainSpec;
  depositContract: string;
  queues: StateQueues;
}

/**
 * The pending queues and the tracked validators of the states the indexer reads, each state's fetched once:
 * the last state of epoch e is the state before epoch e + 1 (and a backfill's e − 1), on mainnet the deposit
 * queue runs to megabytes, and 10,000 validators are 4.5 MiB of JSON. The validators are kept per set of
 * pubkeys asked (a backfill asks for fewer, a registration adds some). Keeps the latest `keep` states;
 * `clear()` after a re-org, which may have replaced them.
 */
export function createStateQueues(beacon: BeaconReads, keep = 4) {
  const memo = new Map<string, Promise<unknown>>();
  function once<T>(key: string, fetch: () => Promise<T>): Promise<T> {
    let p = memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = fetch();
      memo.set(key, p);
      // A failed read is asked again next time.
      p.catch(() => memo.delete(key));
      while (memo.size > 3 * keep) memo.delete(memo.keys().next().value as string);
    }
    return p;
  }
  return {
    deposits: (slot: number): Promise<ApiPendingDeposit[]> =>
      once(`d${slot}`, () => beacon.pendingDeposits(slot)),
    consolidations: (slot: number): Promise<ApiPendingConsolidation[]> =>
      once(`c${slot}`, () => beacon.pendingConsolidations(slot)),
    validators: (slot: number | "genesis", pubkeys: string[]): Promise<ApiValidator[]> =>
      once(`v${slot}:${createHash("sha256").update(pubkeys.join()).digest("hex")}`, () =>
        beacon.validators(slot, pubkeys),
      ),
    clear: () => memo.clear(),
  };
}
export type StateQueues = ReturnType<typeof createStateQueues>;

/**
 * Reads epoch `epoch` from the nodes (every input of `computeEpoch`, the node round trips of all slots a
 * few at a time), computes what it means for the tracked validators, and breaks their CL rewards down as
 * the node's rewards endpoints report them (reward-breakdown.ts). `unserved`: which rewards answer the node
 * did not serve (the rows then have no breakdown). The attestation rewards need only the tracked
 * validators' indices (the epoch's last state, read once through the queues), so they are asked for beside
 * the slots' reads, not after them: every row's validator is among those asked.
 */
export async function readEpoch(
  deps: EpochReadDeps,
  epoch: number,
  tracked: TrackedValidator[],
): Promise<{ data: EpochData; unserved: string | null }> {
  const last = (epoch + 1) * deps.spec.slotsPerEpoch - 1;
  const [input, attestations] = await Promise.all([
    fetchEpoch(deps, epoch, tracked),
    tracked.length
      ? deps.queues
          .validators(
            last,
            tracked.map((t) => t.pubkey),
          )
          .then((after) =>
            attestationRewards(
              deps.beacon.rewards,
              epoch,
              after.map((v) => Number(v.index)),
            ),
          )
      : undefined,
  ]);
  const data = computeEpoch(input);
  const node = await fetchNodeParts(
    deps.beacon.rewards,
    input,
    data.rewards.map((r) => r.validatorIndex),
    attestations,
  );
  return { data: withBreakdown(data, input, node), unserved: "unserved" in node ? node.unserved : null };
}

/** The nodes' side of `readEpoch`: what `computeEpoch` needs, and nothing computed. */
export async function fetchEpoch(
  deps: EpochReadDeps,
  epoch: number,
  tracked: TrackedValidator[],
): Promise<EpochInput> {
  const { beacon, execution, spec, queues } = deps;
  const first = epoch * spec.slotsPerEpoch;
  const last = first + spec.slotsPerEpoch - 1;
  const pubkeys = tracked.map((t) => t.pubkey);
  const byPubkey = new Map(tracked.map((t) => [t.pubkey, t]));
  // A state before Electra has no pending queues (a real node answers 400 for them): none to read.
  const electra = (slot: number) => Math.floor(slot / spec.slotsPerEpoch) >= spec.electraForkEpoch;
  const queued = pubkeys.length > 0 && electra(last);
  const before = queued && first > 0 && electra(first - 1);
  const none = Promise.resolve([]);
  const states = Promise.all([
    queues.validators(last, pubkeys),
    // Epoch 0 is measured from the genesis state: a genesis validator did not earn its balance in it.
    queues.validators(first > 0 ? first - 1 : "genesis", pubkeys),
    queued ? queues.deposits(last) : none,
    before ? queues.deposits(first - 1) : none,
    before ? queues.consolidations(last) : none,
    before ? queues.consolidations(first - 1) : none,
  ]);
  // The slots are read beside the states; only a block's EL reads wait for whether its proposer is tracked.
  const tracking = states.then(([after]) => new Set(after.map((v) => Number(v.index))));
  // Its failure is the states' (awaited below), not one more to report.
  tracking.catch(() => {});
  const addresses = [
    deps.depositContract as Hex,
    SYSTEM_CONTRACTS.withdrawals,
    SYSTEM_CONTRACTS.consolidations,
  ];
  const slotReads = mapConcurrent(
    Array.from({ length: spec.slotsPerEpoch }, (_, i) => first + i),
    8,
    async (slot): Promise<SlotInput> => {
      const [root, block] = await Promise.all([beacon.blockRoot(slot), beacon.block(slot)]);
      const hash = block?.message.body.execution_payload?.block_hash as Hex | undefined;
      if (!block || !hash || root === null) return { slot, root, block: null, proposed: null, requests: [] };
      const proposer = (await tracking).has(Number(block.message.proposer_index));
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
  const [[after, prev, pendingAfter, pendingBefore, consolidatingAfter, consolidatingBefore], slots] =
    await Promise.all([states, slotReads]);
  // The counterpart of a tracked validator in a finished consolidation may be untracked: read by index.
  const known = new Set(prev.map((v) => v.index));
  const unknownSources = finishedConsolidations(consolidatingBefore, consolidatingAfter, await tracking)
    .map((c) => c.source_index)
    .filter((i) => !known.has(i));
  const untrackedSources = unknownSources.length ? await beacon.validators(first - 1, unknownSources) : [];
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
  const withdrawal = address === SYSTEM_CONTRACTS.withdrawals ? decodeWithdrawalRequestLog(log.data) : null;
  const consolidation =
    address === SYSTEM_CONTRACTS.consolidations ? decodeConsolidationRequestLog(log.data) : null;
  let fields: Pick<
    RequestRow,
    "pubkey" | "type" | "sourcePubkey" | "targetPubkey" | "amountGwei" | "withdrawalCredentials"
  >;
  if (address === depositContract.toLowerCase() && log.topics[0] === DEPOSIT_EVENT_TOPIC) {
    fields = { ...decodeDepositEvent(log), type: "DEPOSIT", sourcePubkey: null, targetPubkey: null };
  } else if (withdrawal) {
    fields = {
      pubkey: withdrawal.pubkey,
      type: withdrawal.amountGwei === 0n ? "FULL_WITHDRAWAL" : "PARTIAL_EXIT",
      sourcePubkey: null,
      targetPubkey: null,
      amountGwei: withdrawal.amountGwei,
      withdrawalCredentials: null,
    };
  } else if (consolidation) {
    const { source, target } = consolidation;
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
