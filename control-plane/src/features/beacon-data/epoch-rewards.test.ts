import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiBlock, ApiValidator } from "./client.ts";
import { computeEpoch, type EpochInput, type ProposedPayload, type SlotInput } from "./epoch-rewards.ts";
import type { Lifecycle } from "./lifecycle.ts";

/**
 * computeEpoch against hand-derived values: each row states the balances and payments the chain made (the
 * consensus rules in its comment) and the rewards that follow from them, never what the code returns.
 * Amounts in Gwei; 4 slots per epoch, epoch 5 = slots 20..23.
 */
const ETH = 1_000_000_000n;
const FEE_RECIPIENT = `0x${"fe".repeat(20)}`;
const BUILDER = `0x${"b1".repeat(20)}`;
const OTHER = `0x${"0e".repeat(20)}`;
const pubkey = (i: number) => `0x${i.toString(16).padStart(96, "0")}`;
const credentials = `0x02${"0".repeat(22)}${"aa".repeat(20)}`;

function validator(
  index: number,
  balance: bigint,
  status = "active_ongoing",
  effective?: bigint,
): ApiValidator {
  const floor = (balance / ETH) * ETH;
  return {
    index: String(index),
    balance: String(balance),
    status,
    validator: {
      pubkey: pubkey(index),
      withdrawal_credentials: credentials,
      effective_balance: String(effective ?? (floor > 2048n * ETH ? 2048n * ETH : floor)),
    },
  };
}

function block(
  slot: number,
  proposer: number,
  extra: {
    feeRecipient?: string;
    withdrawals?: { validator: number; amount: bigint }[];
    deposits?: { validator: number; amount: bigint }[];
    /** Deposits in `body.deposits` (a pre-Electra block: applied at once). */
    bridged?: { validator: number; amount: bigint }[];
  } = {},
): ApiBlock {
  return {
    message: {
      slot: String(slot),
      proposer_index: String(proposer),
      body: {
        execution_payload: {
          fee_recipient: extra.feeRecipient ?? OTHER,
          block_number: String(1000 + slot),
          block_hash: `0x${slot.toString(16).padStart(64, "0")}`,
          timestamp: String(slot * 12),
          withdrawals: (extra.withdrawals ?? []).map((w, i) => ({
            index: String(slot * 100 + i),
            validator_index: String(w.validator),
            address: `0x${"aa".repeat(20)}`,
            amount: String(w.amount),
          })),
        },
        execution_requests: {
          deposits: (extra.deposits ?? []).map((d) => ({
            pubkey: pubkey(d.validator),
            amount: String(d.amount),
          })),
        },
        deposits: (extra.bridged ?? []).map((d) => ({
          data: { pubkey: pubkey(d.validator), amount: String(d.amount) },
        })),
      },
    },
  };
}

function slashed(v: ApiValidator): ApiValidator {
  return { ...v, validator: { ...v.validator, slashed: true } };
}

/** Four slots, each a block by an untracked proposer unless replaced. */
function slots(replace: Record<number, Partial<SlotInput>> = {}): SlotInput[] {
  return [20, 21, 22, 23].map((slot) => ({
    slot,
    root: `0xr${slot}`,
    block: block(slot, 999),
    proposed: null,
    requests: [],
    ...replace[slot],
  }));
}

function scenario(
  over: Partial<Omit<EpochInput, "tracked">> & {
    tracked?: number[];
    lifecycle?: Lifecycle | null;
    /** The tracked validators' configured fee recipient; null as for a registered pubkey. */
    feeRecipient?: string | null;
  },
): EpochInput {
  const { tracked = [1], lifecycle = "ACTIVE", feeRecipient = FEE_RECIPIENT, ...rest } = over;
  return {
    epoch: 5,
    spec: { genesisTime: 0, secondsPerSlot: 12, slotsPerEpoch: 4, electraForkEpoch: 0 },
    tracked: tracked.map((i) => ({ pubkey: pubkey(i), feeRecipient, lifecycle })),
    validators: { before: [], after: [] },
    pendingDeposits: { before: [], after: [] },
    pendingConsolidations: { before: [], after: [] },
    untrackedSources: [],
    slots: slots(),
    ...rest,
  };
}

const payload = (p: Partial<ProposedPayload>): ProposedPayload => ({
  baseFeePerGas: 10n * ETH,
  transactions: [],
  receipts: [],
  ...p,
});

interface Row {
  name: string;
  input: EpochInput;
  /** [validator index, CL reward, EL reward] per reward row, in tracked order. */
  rewards: [number, bigint, bigint][];
  /** [MEV payment, priority fees] per reward row, where the row is about them. */
  split?: [bigint, bigint][];
  /** The validators' fee recipient after the epoch (the address that was paid). */
  feeRecipients?: (string | null)[];
  transactions?: string[];
  lifecycle?: Lifecycle[];
}

const rows: Row[] = [
  {
    name: "attestation reward: the balance grew by 10,000 Gwei and nothing came in or went out",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 10_000n)] },
    }),
    rewards: [[1, 10_000n, 0n]],
    lifecycle: ["ACTIVE"],
  },
  {
    name: "top-up: 1 ETH applied from the pending queue and 2 ETH by a deposit request in a block are not a reward",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 35n * ETH + 5_000n)] },
      // Pending 1 ETH at the end of epoch 4, gone at the end of epoch 5: applied in between.
      pendingDeposits: { before: [{ pubkey: pubkey(1), amount: String(ETH) }], after: [] },
      slots: slots({ 21: { block: block(21, 999, { deposits: [{ validator: 1, amount: 2n * ETH }] }) } }),
    }),
    // 35 ETH + 5,000 − 32 ETH − (1 + 2) ETH = 5,000.
    rewards: [[1, 5_000n, 0n]],
  },
  {
    name: "deposit still queued at the end of the epoch: counted neither as applied nor as reward",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 7_000n)] },
      pendingDeposits: {
        before: [{ pubkey: pubkey(1), amount: String(ETH) }],
        after: [{ pubkey: pubkey(1), amount: String(ETH) }],
      },
    }),
    rewards: [[1, 7_000n, 0n]],
  },
  {
    name: "partial withdrawal: the sweep paid 0.5 ETH of excess, the balance fell by it less the epoch's reward",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH + ETH / 2n)], after: [validator(1, 32n * ETH + 3_000n)] },
      slots: slots({ 22: { block: block(22, 999, { withdrawals: [{ validator: 1, amount: ETH / 2n }] }) } }),
    }),
    // 32 ETH + 3,000 − 32.5 ETH + 0.5 ETH = 3,000.
    rewards: [[1, 3_000n, 0n]],
    transactions: ["PARTIAL_EXIT"],
  },
  {
    name: "full withdrawal: an exited validator's whole balance swept, no reward in that",
    input: scenario({
      lifecycle: "EXITED",
      validators: {
        before: [validator(1, 32n * ETH + 100n, "withdrawal_possible")],
        after: [validator(1, 0n, "withdrawal_done")],
      },
      slots: slots({
        20: { block: block(20, 999, { withdrawals: [{ validator: 1, amount: 32n * ETH + 100n }] }) },
      }),
    }),
    rewards: [[1, 0n, 0n]],
    transactions: ["FULL_WITHDRAWAL"],
    lifecycle: ["WITHDRAWAL_DONE"],
  },
  {
    name: "consolidation: the source's min(balance, effective balance) moves to the target, neither a loss nor a reward",
    input: scenario({
      tracked: [1, 2],
      validators: {
        // Source 1: 32 ETH + 500 balance, 32 ETH effective → 32 ETH moves, 500 stays (swept later).
        before: [validator(1, 32n * ETH + 500n), validator(2, 40n * ETH)],
        after: [validator(1, 500n, "withdrawal_possible"), validator(2, 72n * ETH + 7_000n)],
      },
      pendingConsolidations: { before: [{ source_index: "1", target_index: "2" }], after: [] },
    }),
    // Source: 500 − (32 ETH + 500) + 32 ETH = 0. Target: 72 ETH + 7,000 − 40 ETH − 32 ETH = 7,000.
    rewards: [
      [1, 0n, 0n],
      [2, 7_000n, 0n],
    ],
  },
  {
    name: "a slashed consolidation source leaves the queue without moving its balance: nothing is credited to it",
    input: scenario({
      tracked: [1, 2],
      validators: {
        // Source 1 slashed: Electra drops its consolidation; it keeps its balance minus the 1 ETH penalty.
        before: [slashed(validator(1, 32n * ETH)), validator(2, 40n * ETH)],
        after: [slashed(validator(1, 31n * ETH, "active_slashed")), validator(2, 40n * ETH + 7_000n)],
      },
      pendingConsolidations: { before: [{ source_index: "1", target_index: "2" }], after: [] },
    }),
    // Source: 31 − 32 ETH = −1 ETH (the penalty, a real loss). Target: 40 ETH + 7,000 − 40 ETH = 7,000.
    rewards: [
      [1, -ETH, 0n],
      [2, 7_000n, 0n],
    ],
  },
  {
    name: "consolidation into a tracked target from an untracked source, read by index",
    input: scenario({
      tracked: [2],
      validators: { before: [validator(2, 32n * ETH)], after: [validator(2, 64n * ETH + 1_000n)] },
      pendingConsolidations: { before: [{ source_index: "7", target_index: "2" }], after: [] },
      untrackedSources: [validator(7, 33n * ETH, "active_exiting", 32n * ETH)],
    }),
    // min(33, 32) = 32 ETH moved in: 64 ETH + 1,000 − 32 ETH − 32 ETH = 1,000.
    rewards: [[2, 1_000n, 0n]],
  },
  {
    name: "builder block: the builder's last transaction paid the fee recipient 0.05 ETH, an earlier reverted one nothing",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        21: {
          block: block(21, 1, { feeRecipient: BUILDER }),
          proposed: payload({
            transactions: [
              { hash: "0xrev", from: BUILDER, to: FEE_RECIPIENT, value: 9n * ETH * ETH },
              { hash: "0xpay", from: BUILDER, to: FEE_RECIPIENT, value: 50_000_000n * ETH },
            ],
            receipts: [
              {
                transactionHash: "0xrev",
                status: "reverted",
                gasUsed: 21_000n,
                effectiveGasPrice: 11n * ETH,
              },
              { transactionHash: "0xpay", status: "success", gasUsed: 21_000n, effectiveGasPrice: 11n * ETH },
            ],
          }),
        },
      }),
    }),
    // The builder's priority fees are its own (coinbase ≠ fee recipient); 0.05 ETH = 50,000,000 Gwei.
    rewards: [[1, 2_000n, 50_000_000n]],
    split: [[50_000_000n, 0n]],
    feeRecipients: [FEE_RECIPIENT],
  },
  {
    name: "builder block whose final payment reverted: the proposer received nothing",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        21: {
          block: block(21, 1, { feeRecipient: BUILDER }),
          proposed: payload({
            transactions: [{ hash: "0xrev", from: BUILDER, to: FEE_RECIPIENT, value: ETH * ETH }],
            receipts: [
              {
                transactionHash: "0xrev",
                status: "reverted",
                gasUsed: 21_000n,
                effectiveGasPrice: 11n * ETH,
              },
            ],
          }),
        },
      }),
    }),
    rewards: [[1, 2_000n, 0n]],
    split: [[0n, 0n]],
  },
  {
    name: "registered validator (no configured fee recipient) on a builder block: the payment to its address, not the builder's fees",
    input: scenario({
      feeRecipient: null,
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        21: {
          block: block(21, 1, { feeRecipient: BUILDER }),
          proposed: payload({
            transactions: [
              { hash: "0x1", from: OTHER, to: BUILDER, value: 5n },
              { hash: "0xpay", from: BUILDER, to: `0x${"ab".repeat(20)}`, value: 70_000_000n * ETH },
            ],
            receipts: [
              { transactionHash: "0x1", status: "success", gasUsed: 21_000n, effectiveGasPrice: 13n * ETH },
              { transactionHash: "0xpay", status: "success", gasUsed: 21_000n, effectiveGasPrice: 10n * ETH },
            ],
          }),
        },
      }),
    }),
    // 0.07 ETH paid to 0xabab…; the 63,000 Gwei of priority fees (21,000 × 3) are the builder's.
    rewards: [[1, 2_000n, 70_000_000n]],
    split: [[70_000_000n, 0n]],
    feeRecipients: [`0x${"ab".repeat(20)}`],
  },
  {
    name: "builder block paying another address than the validator's configured fee recipient: none of its income",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        21: {
          block: block(21, 1, { feeRecipient: BUILDER }),
          proposed: payload({
            transactions: [{ hash: "0xpay", from: BUILDER, to: OTHER, value: 70_000_000n * ETH }],
            receipts: [
              { transactionHash: "0xpay", status: "success", gasUsed: 21_000n, effectiveGasPrice: 10n * ETH },
            ],
          }),
        },
      }),
    }),
    rewards: [[1, 2_000n, 0n]],
    split: [[0n, 0n]],
  },
  {
    name: "local block: the priority fees (effective gas price − base fee) × gas of every receipt",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        22: {
          block: block(22, 1, { feeRecipient: FEE_RECIPIENT }),
          proposed: payload({
            transactions: [
              { hash: "0x1", from: OTHER, to: BUILDER, value: 1n },
              { hash: "0x2", from: OTHER, to: BUILDER, value: 1n },
            ],
            receipts: [
              { transactionHash: "0x1", status: "success", gasUsed: 21_000n, effectiveGasPrice: 12n * ETH },
              { transactionHash: "0x2", status: "reverted", gasUsed: 50_000n, effectiveGasPrice: 11n * ETH },
            ],
          }),
        },
      }),
    }),
    // Base fee 10 Gwei: 21,000 × 2 Gwei + 50,000 × 1 Gwei (a reverted transaction pays its fee too).
    rewards: [[1, 2_000n, 92_000n]],
    split: [[0n, 92_000n]],
    feeRecipients: [FEE_RECIPIENT],
  },
  {
    name: "registered validator on a local block whose last transaction comes from elsewhere: priority fees at the coinbase",
    input: scenario({
      feeRecipient: null,
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH + 2_000n)] },
      slots: slots({
        22: {
          block: block(22, 1, { feeRecipient: `0x${"cd".repeat(20)}` }),
          proposed: payload({
            transactions: [{ hash: "0x1", from: OTHER, to: `0x${"cd".repeat(20)}`, value: 1n }],
            receipts: [
              { transactionHash: "0x1", status: "success", gasUsed: 21_000n, effectiveGasPrice: 12n * ETH },
            ],
          }),
        },
      }),
    }),
    rewards: [[1, 2_000n, 42_000n]],
    split: [[0n, 42_000n]],
    feeRecipients: [`0x${"cd".repeat(20)}`],
  },
  {
    name: "pre-Electra top-up: a 1 ETH deposit in body.deposits, applied at once with no queue, is not a reward",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 33n * ETH + 3_000n)] },
      slots: slots({ 21: { block: block(21, 999, { bridged: [{ validator: 1, amount: ETH }] }) } }),
    }),
    // 33 ETH + 3,000 − 32 ETH − 1 ETH deposited = 3,000.
    rewards: [[1, 3_000n, 0n]],
  },
  {
    name: "missed slot: no block, no EL reward, the slot recorded without a root; the balance still counts",
    input: scenario({
      validators: { before: [validator(1, 32n * ETH)], after: [validator(1, 32n * ETH - 3_000n)] },
      slots: slots({ 23: { root: null, block: null } }),
    }),
    // Its proposal missed: a small penalty for missed attestations, −3,000.
    rewards: [[1, -3_000n, 0n]],
  },
  {
    name: "exit: active_exiting is EXIT_SENT; the balance keeps earning until it exits",
    input: scenario({
      validators: {
        before: [validator(1, 32n * ETH, "active_ongoing")],
        after: [validator(1, 32n * ETH + 4_000n, "active_exiting")],
      },
    }),
    rewards: [[1, 4_000n, 0n]],
    lifecycle: ["EXIT_SENT"],
  },
  {
    name: "slashing: the initial penalty (effective balance / 4096 since Electra) is a negative reward",
    input: scenario({
      validators: {
        before: [validator(1, 32n * ETH)],
        after: [validator(1, 32n * ETH - (32n * ETH) / 4096n, "active_slashed")],
      },
    }),
    rewards: [[1, -7_812_500n, 0n]],
    lifecycle: ["EXIT_SENT"],
  },
];

for (const row of rows) {
  test(`computeEpoch: ${row.name}`, () => {
    const out = computeEpoch(row.input);
    assert.deepEqual(
      out.rewards.map((r) => [r.validatorIndex, r.clRewardGwei, r.elRewardGwei]),
      row.rewards,
    );
    for (const r of out.rewards) assert.equal(r.elRewardGwei, r.mevRewardGwei + r.priorityFeeGwei);
    if (row.split)
      assert.deepEqual(
        out.rewards.map((r) => [r.mevRewardGwei, r.priorityFeeGwei]),
        row.split,
      );
    if (row.feeRecipients)
      assert.deepEqual(
        out.validators.map((v) => v.feeRecipient),
        row.feeRecipients,
      );
    if (row.transactions)
      assert.deepEqual(
        out.transactions.map((t) => t.type),
        row.transactions,
      );
    if (row.lifecycle)
      assert.deepEqual(
        out.validators.map((v) => v.lifecycle),
        row.lifecycle,
      );
    assert.deepEqual(
      out.slots.map((s) => s.slot),
      [20, 21, 22, 23],
    );
  });
}

test("computeEpoch: a deposit seen before the registry has the validator makes it DEPOSITED, without a reward row", () => {
  const out = computeEpoch(
    scenario({
      lifecycle: null,
      pendingDeposits: { before: [], after: [{ pubkey: pubkey(1), amount: String(32n * ETH) }] },
    }),
  );
  assert.deepEqual(out.rewards, []);
  assert.deepEqual(
    out.validators.map((v) => [v.lifecycle, v.validatorIndex]),
    [["DEPOSITED", null]],
  );
  assert.deepEqual(
    out.history.map((h) => h.status),
    ["DEPOSITED"],
  );
});
