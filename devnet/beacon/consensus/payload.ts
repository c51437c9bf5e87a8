import "./preset.ts";
import { createHash } from "node:crypto";
import { ssz } from "@lodestar/types";
import type { Address, Hex } from "viem";
import { BUILDERS, type ExecutionNode } from "../execution.ts";
import type { ElPayment } from "../payments.ts";
import { requestsFromLogs } from "../requests.ts";
import type { BuiltPayload, PayloadInput } from "./producer.ts";

/** Makes a slot's execution payload and its requests (the execution layer's part of a block). */
export type PayloadBuilder = (input: PayloadInput) => Promise<BuiltPayload>;

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
const unit = (slot: number, salt: string) =>
  createHash("sha256").update(`${slot}:${salt}`).digest().readUInt32BE(0) / 2 ** 32;
const noRequests = () => ({ deposits: [], withdrawals: [], consolidations: [] });

/** Without an execution node: empty payloads of the right shape, chained by their hashes. */
export function syntheticPayloads(): PayloadBuilder {
  let number = 0;
  return async (input) => ({
    payload: {
      ...ssz.electra.ExecutionPayload.defaultValue(),
      parentHash: input.parentHash,
      prevRandao: input.prevRandao,
      timestamp: input.timestamp,
      withdrawals: input.withdrawals,
      blockNumber: ++number,
      blockHash: createHash("sha256").update(`el:${input.slot}`).digest(),
      gasLimit: 30_000_000,
      baseFeePerGas: 7n,
    },
    requests: noRequests(),
  });
}

/**
 * Payloads that are real anvil blocks: the slot's withdrawals credited on the execution layer, a builder
 * block (MEV-boost: the builder is the coinbase and pays the proposer's fee recipient) for `builderShare` of
 * the slots, and the block's deposit and request logs as the beacon block's execution requests (EIP-6110,
 * EIP-7002, EIP-7251). `payments` records what each proposer received on the execution layer.
 */
export function anvilPayloads(
  ex: ExecutionNode,
  opts: {
    builderShare?: number;
    feeRecipient: (proposerIndex: number) => Address;
    pubkey: (proposerIndex: number) => string;
    /** Keep anvil's snapshot before each slot's block, so that a re-org can revert them (a round trip a slot). */
    reorgs?: boolean;
    /** A builder block (true), a local one (false), or by `builderShare` (undefined) for this proposal. */
    builder?: (proposerIndex: number) => boolean | undefined;
  },
): {
  build: PayloadBuilder;
  payments: Map<number, ElPayment>;
  rewind: (slot: number) => Promise<void>;
} {
  const payments = new Map<number, ElPayment>();
  /** anvil's snapshot before each slot's block, for a re-org (evm_revert drops the later ones too). */
  const snapshots = new Map<number, Hex>();
  const rewind = async (slot: number) => {
    const after = [...snapshots.keys()].filter((s) => s > slot).sort((a, b) => a - b);
    const first = after[0];
    if (first === undefined) {
      if ([...payments.keys()].some((s) => s > slot))
        throw new Error("the devnet keeps no execution snapshots to re-org: start it with reorgs: true");
      return;
    }
    await ex.revert(snapshots.get(first) as Hex);
    for (const s of after) {
      snapshots.delete(s);
      payments.delete(s);
    }
  };
  const build: PayloadBuilder = async (input) => {
    if (opts.reorgs) snapshots.set(input.slot, await ex.snapshot());
    // One credit an address (the sweep pays most validators a little every block), all at once.
    const credits = new Map<string, bigint>();
    for (const w of input.withdrawals) {
      const to = hex(w.address);
      credits.set(to, (credits.get(to) ?? 0n) + BigInt(w.amount) * 10n ** 9n);
    }
    await Promise.all([...credits].map(([to, wei]) => ex.credit(to as Address, wei)));
    const feeRecipient = opts.feeRecipient(input.proposerIndex);
    const builder =
      opts.builder?.(input.proposerIndex) ?? unit(input.slot, "builder") < (opts.builderShare ?? 0.4);
    const el = await ex.produceBlock({
      timestamp: input.timestamp,
      feeRecipient,
      builderPaymentWei: builder ? BigInt(1 + Math.floor(unit(input.slot, "bid") * 50)) * 10n ** 15n : 0n,
      builder: BUILDERS[Math.floor(unit(input.slot, "which") * BUILDERS.length)] as Address,
      trafficTxs: 1,
      tipGwei: 1 + Math.floor(unit(input.slot, "tip") * 3),
    });
    payments.set(input.slot, {
      slot: input.slot,
      blockNumber: el.number,
      proposerIndex: input.proposerIndex,
      pubkey: opts.pubkey(input.proposerIndex),
      feeRecipient: feeRecipient.toLowerCase(),
      builder: el.paid.builder?.toLowerCase() ?? null,
      mevWei: el.paid.mevWei,
      priorityFeeWei: el.paid.priorityFeeWei,
    });
    // The beacon chain's own fields (parent hash, RANDAO mix, timestamp, withdrawals) are what its rules
    // check; the rest is anvil's block.
    const payload = ssz.electra.ExecutionPayload.fromJson({
      ...el.payload,
      parent_hash: hex(input.parentHash),
      fee_recipient: el.feeRecipient.toLowerCase(),
      prev_randao: hex(input.prevRandao),
      block_number: String(el.number),
      timestamp: String(input.timestamp),
      block_hash: el.hash,
      withdrawals: [],
    });
    payload.withdrawals = input.withdrawals;
    return { payload, requests: ssz.electra.ExecutionRequests.fromJson(requestsFromLogs(el.logs as never)) };
  };
  return { build, payments, rewind };
}
