import { WEI_PER_GWEI } from "../../chains/evm.ts";
import type { ClBreakdown } from "./cl-breakdown.ts";
import type {
  ApiBlock,
  ApiPendingConsolidation,
  ApiPendingDeposit,
  ApiValidator,
  ChainSpec,
} from "./client.ts";
import { type Lifecycle, later, lifecycleOf, transitions } from "./lifecycle.ts";
import { type StatusEpoch, statusEpochsOf } from "./status-epochs.ts";

/** What the indexer follows of a tracked validator when it reads an epoch. */
export interface TrackedValidator {
  pubkey: string;
  /** From provisioning; null for registered pubkeys (then the proposed blocks' fee recipient). */
  feeRecipient: string | null;
  /** Latest lifecycle status in the history so far (null: none yet). */
  lifecycle: Lifecycle | null;
}

export interface TransactionRow {
  uid: string;
  pubkey: string;
  type: "DEPOSIT" | "PARTIAL_EXIT" | "FULL_WITHDRAWAL" | "CONSOLIDATE" | "SWITCH";
  layer: "EXECUTION_LAYER" | "CONSENSUS_LAYER";
  transactionHash: string;
  blockNumber: number;
  blockTimestamp: number;
  data: string;
  feeGwei: bigint;
  from: string;
  to: string;
  sourcePubkey: string | null;
  targetPubkey: string | null;
  amountGwei: bigint;
  withdrawalAddress: string | null;
  withdrawalCredentials: string | null;
  slot: number;
}
/** A deposit or EIP-7002/7251 request of a tracked validator found in a block's logs. */
export type RequestRow = Omit<TransactionRow, "blockNumber" | "blockTimestamp" | "slot">;

/** What one epoch means for the tracked validators; written in one transaction by indexer-repo.ts. */
export interface EpochData {
  epoch: number;
  slots: { slot: number; root: string | null }[];
  /** `elRewardGwei` = `mevRewardGwei` + `priorityFeeGwei` (see `elPayment`). */
  rewards: {
    validatorIndex: number;
    balanceGwei: bigint;
    clRewardGwei: bigint;
    elRewardGwei: bigint;
    mevRewardGwei: bigint;
    priorityFeeGwei: bigint;
    /** The CL reward's parts from the node's rewards endpoints (reward-breakdown.ts); null: not served. */
    breakdown?: ClBreakdown | null;
  }[];
  validators: {
    pubkey: string;
    validatorIndex: number | null;
    beaconStatus: string | null;
    lifecycle: Lifecycle;
    withdrawalCredentials: string | null;
    /** Where the validator's last proposal in the epoch paid it; null if none. */
    feeRecipient: string | null;
    balanceGwei: bigint;
    /** The beacon statuses it has reached and their epochs (status-epochs.ts). */
    statusEpochs: StatusEpoch[];
  }[];
  history: { pubkey: string; status: Lifecycle; time: Date; epoch: number }[];
  transactions: TransactionRow[];
}

/** The execution block a tracked validator proposed, as far as its EL reward needs it. */
export interface ProposedPayload {
  baseFeePerGas: bigint | null;
  /** In block order (the last one is where a builder pays the proposer). */
  transactions: { hash: string; from: string; to: string | null; value: bigint }[];
  receipts: {
    transactionHash: string;
    status: "success" | "reverted";
    gasUsed: bigint;
    effectiveGasPrice: bigint;
  }[];
}

/** One slot as read from the nodes; `block` null for a missed slot. */
export interface SlotInput {
  slot: number;
  root: string | null;
  block: ApiBlock | null;
  /** Fetched exactly when a tracked validator proposed the block. */
  proposed: ProposedPayload | null;
  /** Requests of tracked validators in the block's logs, in log order. */
  requests: RequestRow[];
}

/** Everything `computeEpoch` needs, read from the nodes by read-epoch.ts. States are the epochs' last slots. */
export interface EpochInput {
  epoch: number;
  spec: ChainSpec;
  tracked: TrackedValidator[];
  validators: { before: ApiValidator[]; after: ApiValidator[] };
  pendingDeposits: { before: ApiPendingDeposit[]; after: ApiPendingDeposit[] };
  pendingConsolidations: { before: ApiPendingConsolidation[]; after: ApiPendingConsolidation[] };
  /** Previous state of consolidation sources that are not tracked (see `finishedConsolidations`). */
  untrackedSources: ApiValidator[];
  slots: SlotInput[];
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * Consolidations pending at the end of the previous epoch and gone at the end of this one, that touch a
 * tracked validator (by index): processed at this epoch's transition.
 */
export function finishedConsolidations(
  before: ApiPendingConsolidation[],
  after: ApiPendingConsolidation[],
  trackedIndices: Set<number>,
): ApiPendingConsolidation[] {
  const key = (c: ApiPendingConsolidation) => `${c.source_index}:${c.target_index}`;
  const still = new Set(after.map(key));
  return before.filter(
    (c) =>
      !still.has(key(c)) &&
      (trackedIndices.has(Number(c.source_index)) || trackedIndices.has(Number(c.target_index))),
  );
}

/**
 * Balance moved by EIP-7251 consolidations at this epoch's transition, per validator index: + for the
 * source (it gave it away: not a loss), − for the target (it received it: not a reward). A finished
 * consolidation moved min(balance, effective balance) of the source as they stood before (Electra
 * `process_pending_consolidations`; an exited source earns nothing more by then), unless the source was
 * slashed: then it left the queue and nothing moved.
 */
function consolidated(input: EpochInput, trackedIndices: Set<number>): Map<number, bigint> {
  const moved = new Map<number, bigint>();
  const done = finishedConsolidations(
    input.pendingConsolidations.before,
    input.pendingConsolidations.after,
    trackedIndices,
  );
  const before = new Map([...input.validators.before, ...input.untrackedSources].map((v) => [v.index, v]));
  const add = (index: string, x: bigint) => moved.set(Number(index), (moved.get(Number(index)) ?? 0n) + x);
  for (const c of done) {
    const source = before.get(c.source_index);
    // A slashed source is dropped from the queue without moving anything (Electra
    // process_pending_consolidations): its balance change stays its own (the penalty is a real loss).
    if (!source || source.validator.slashed) continue;
    const balance = BigInt(source.balance);
    const effective = BigInt(source.validator.effective_balance);
    const amount = balance < effective ? balance : effective;
    add(c.source_index, amount);
    add(c.target_index, -amount);
  }
  return moved;
}

/** What the proposer of a block received on the execution layer (Gwei), and at which address. */
export interface ElPayment {
  mevGwei: bigint;
  priorityFeeGwei: bigint;
  /** The address paid; null when nothing in the block went to the validator's configured fee recipient. */
  feeRecipient: string | null;
}

/**
 * The proposer's execution-layer income from one block, told apart without a relay (docs/beacon-data.md,
 * "EL reward"). A **builder block** (MEV-boost; the builders' convention, Flashbots' "builder payments to
 * block proposers"): its last transaction is a successful transfer from the payload's fee recipient (the
 * builder, the block's coinbase) to another address X; X is the proposer's fee recipient and the transfer's
 * value its whole income (the priority fees went to the builder). Otherwise a **local block**: the proposer's
 * income is the priority fees, Σ gasUsed × (effectiveGasPrice − baseFee), at the coinbase. A validator with a
 * configured fee recipient (provisioned with one) is paid only there: a payment to another X, or a local
 * block with another coinbase, is none of its income. Each part is truncated to Gwei on its own.
 */
export function elPayment(p: ProposedPayload, coinbase: string, configured: string | null): ElPayment {
  const cb = coinbase.toLowerCase();
  const last = p.transactions.at(-1);
  const to = last?.to?.toLowerCase();
  const succeeded = (hash: string) =>
    p.receipts.find((r) => r.transactionHash === hash)?.status === "success";
  if (
    last &&
    to &&
    last.from.toLowerCase() === cb &&
    to !== cb &&
    (configured === null || to === configured) &&
    succeeded(last.hash)
  ) {
    return { mevGwei: last.value / WEI_PER_GWEI, priorityFeeGwei: 0n, feeRecipient: to };
  }
  if (configured !== null && configured !== cb)
    return { mevGwei: 0n, priorityFeeGwei: 0n, feeRecipient: null };
  let wei = 0n;
  for (const r of p.receipts) wei += r.gasUsed * (r.effectiveGasPrice - (p.baseFeePerGas ?? 0n));
  return { mevGwei: 0n, priorityFeeGwei: wei / WEI_PER_GWEI, feeRecipient: cb };
}

/**
 * What epoch `input.epoch` means for the tracked validators; pure (docs/chains/ethereum.md). CL reward =
 * balance at the end of the epoch − balance at the end of the previous one − deposits applied in between
 * (pending before + deposit requests in the epoch's blocks − pending after) + withdrawals paid in the
 * epoch's blocks ± balance moved by consolidations: a top-up, a withdrawal or a consolidation is never a
 * reward. EL reward = `elPayment` of each block the validator proposed (MEV payment + priority fees).
 */
export function computeEpoch(input: EpochInput): EpochData {
  const { epoch, spec, tracked } = input;
  const last = epoch * spec.slotsPerEpoch + spec.slotsPerEpoch - 1;
  const byPubkey = new Map(tracked.map((t) => [t.pubkey, t]));
  const pendingSum = (list: ApiPendingDeposit[]) => {
    const m = new Map<string, bigint>();
    for (const d of list) {
      const k = d.pubkey.toLowerCase();
      if (byPubkey.has(k)) m.set(k, (m.get(k) ?? 0n) + BigInt(d.amount));
    }
    return m;
  };
  const applied = pendingSum(input.pendingDeposits.before);
  for (const [k, v] of pendingSum(input.pendingDeposits.after)) applied.set(k, (applied.get(k) ?? 0n) - v);
  const cur = input.validators.after;
  const curByIndex = new Map(cur.map((v) => [Number(v.index), v]));
  const curByPubkey = new Map(cur.map((v) => [v.validator.pubkey.toLowerCase(), v]));
  const pendingNow = new Set(input.pendingDeposits.after.map((d) => d.pubkey.toLowerCase()));
  const prevBalance = new Map(input.validators.before.map((v) => [Number(v.index), BigInt(v.balance)]));
  const moved = consolidated(input, new Set(curByIndex.keys()));
  const withdrawn = new Map<number, bigint>();
  const el = new Map<number, { mev: bigint; fees: bigint }>();
  const feeRecipientOf = new Map<string, string>();
  const slots: EpochData["slots"] = [];
  const transactions: TransactionRow[] = [];
  const observed = new Map<string, { status: Lifecycle; time: Date }[]>();
  const observe = (pubkey: string, status: Lifecycle, time: Date) =>
    observed.set(pubkey, [...(observed.get(pubkey) ?? []), { status, time }]);

  for (const { slot, root, block, proposed, requests } of input.slots) {
    slots.push({ slot, root });
    const payload = block?.message.body.execution_payload;
    if (!block || !payload || root === null) continue;
    const blockNumber = Number(payload.block_number);
    const timestamp = Number(payload.timestamp);
    // Deposit requests (Electra), and deposits bridged the old way (`body.deposits`): applied at once
    // before Electra, queued since; either way inflow, not reward.
    const deposits = [
      ...(block.message.body.execution_requests?.deposits ?? []),
      ...(block.message.body.deposits ?? []).map((d) => d.data),
    ];
    for (const d of deposits) {
      const k = d.pubkey.toLowerCase();
      if (byPubkey.has(k)) applied.set(k, (applied.get(k) ?? 0n) + BigInt(d.amount));
    }
    for (const w of payload.withdrawals ?? []) {
      const index = Number(w.validator_index);
      const v = curByIndex.get(index);
      if (!v) continue;
      withdrawn.set(index, (withdrawn.get(index) ?? 0n) + BigInt(w.amount));
      transactions.push({
        uid: `cl:${w.index}`,
        pubkey: v.validator.pubkey.toLowerCase(),
        type: /^(exited|withdrawal)/.test(v.status) ? "FULL_WITHDRAWAL" : "PARTIAL_EXIT",
        layer: "CONSENSUS_LAYER",
        // A withdrawal has no transaction: the execution block that paid it stands in for the hash.
        transactionHash: payload.block_hash,
        blockNumber,
        blockTimestamp: timestamp,
        data: "0x",
        feeGwei: 0n,
        from: ZERO_ADDRESS,
        to: w.address.toLowerCase(),
        sourcePubkey: null,
        targetPubkey: null,
        amountGwei: BigInt(w.amount),
        withdrawalAddress: w.address.toLowerCase(),
        withdrawalCredentials: v.validator.withdrawal_credentials,
        slot,
      });
    }
    const proposer = curByIndex.get(Number(block.message.proposer_index));
    if (proposer && proposed) {
      const pk = proposer.validator.pubkey.toLowerCase();
      const paid = elPayment(proposed, payload.fee_recipient, byPubkey.get(pk)?.feeRecipient ?? null);
      if (paid.feeRecipient) feeRecipientOf.set(pk, paid.feeRecipient);
      const index = Number(proposer.index);
      const sum = el.get(index) ?? { mev: 0n, fees: 0n };
      el.set(index, { mev: sum.mev + paid.mevGwei, fees: sum.fees + paid.priorityFeeGwei });
    }
    for (const row of requests) {
      transactions.push({ ...row, blockNumber, blockTimestamp: timestamp, slot });
      const time = new Date(timestamp * 1000);
      if (row.type === "DEPOSIT") observe(row.pubkey, "DEPOSITED", time);
      if (row.type === "FULL_WITHDRAWAL") observe(row.pubkey, "EXIT_REQUESTED", time);
    }
  }

  const epochEnd = new Date((spec.genesisTime + last * spec.secondsPerSlot) * 1000);
  const rewards: EpochData["rewards"] = [];
  const validators: EpochData["validators"] = [];
  const allHistory: EpochData["history"] = [];
  for (const t of tracked) {
    const v = curByPubkey.get(t.pubkey);
    if (v) observe(t.pubkey, lifecycleOf(v.status), epochEnd);
    else if ((applied.get(t.pubkey) ?? 0n) !== 0n || pendingNow.has(t.pubkey)) {
      observe(t.pubkey, "DEPOSITED", epochEnd);
    }
    let status = t.lifecycle;
    for (const o of observed.get(t.pubkey) ?? []) {
      const next = later(status, o.status);
      if (next === status) continue;
      for (const s of transitions(status, next))
        allHistory.push({ pubkey: t.pubkey, status: s, time: o.time, epoch });
      status = next;
    }
    validators.push({
      pubkey: t.pubkey,
      validatorIndex: v ? Number(v.index) : null,
      beaconStatus: v?.status ?? null,
      lifecycle: status ?? "CREATED",
      withdrawalCredentials: v?.validator.withdrawal_credentials ?? null,
      // Only what a proposal paid: the shared row is every tracking organisation's, and the fee recipient
      // given at provisioning is the provisioner's alone (its own tracking row keeps it).
      feeRecipient: feeRecipientOf.get(t.pubkey) ?? null,
      balanceGwei: v ? BigInt(v.balance) : 0n,
      statusEpochs: v ? statusEpochsOf(v, epoch) : [],
    });
    if (!v) continue;
    const index = Number(v.index);
    const end = BigInt(v.balance);
    const start = prevBalance.get(index) ?? 0n;
    const out = withdrawn.get(index) ?? 0n;
    const inflow = applied.get(t.pubkey) ?? 0n;
    if (start === 0n && end === 0n && out === 0n && inflow === 0n) continue;
    const { mev, fees } = el.get(index) ?? { mev: 0n, fees: 0n };
    rewards.push({
      validatorIndex: index,
      balanceGwei: end,
      clRewardGwei: end - start - inflow + out + (moved.get(index) ?? 0n),
      elRewardGwei: mev + fees,
      mevRewardGwei: mev,
      priorityFeeGwei: fees,
    });
  }
  return { epoch, slots, rewards, validators, history: allHistory, transactions };
}
