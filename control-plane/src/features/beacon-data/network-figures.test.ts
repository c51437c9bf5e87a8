import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiValidator } from "./client.ts";
import { networkFigures } from "./network-figures.ts";
import { aprPercent, daysCovered } from "./rates.ts";

const ETH = 1_000_000_000n;
const FAR = String(2n ** 64n - 1n);
/** Mainnet's Electra constants (consensus-specs presets/mainnet/electra.yaml, configs/mainnet.yaml). */
const MAINNET = {
  MAX_SEED_LOOKAHEAD: 4,
  MIN_VALIDATOR_WITHDRAWABILITY_DELAY: 256,
  MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA: String(128n * ETH),
  MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT: String(256n * ETH),
  CHURN_LIMIT_QUOTIENT: 65_536,
  EFFECTIVE_BALANCE_INCREMENT: String(ETH),
};
const validator = (i: number, effective: bigint, exitEpoch = FAR): ApiValidator => ({
  index: String(i),
  balance: String(effective + 5n),
  status: exitEpoch === FAR ? "active_ongoing" : "active_exiting",
  validator: {
    pubkey: `0x${"ab".repeat(48)}`,
    withdrawal_credentials: `0x${"00".repeat(32)}`,
    effective_balance: String(effective),
    exit_epoch: exitEpoch,
  },
});
const base = { slotsPerEpoch: 32, secondsPerSlot: 12, genesisTime: 1_606_824_023, spec: MAINNET };

test("mainnet-sized stake: 32 M ETH gives 488 ETH of balance churn, capped at 256 for activations and exits", () => {
  // 15,625 validators of 2,048 ETH: 32,000,000 ETH; ÷ 65,536 = 488.28 ETH, floored to the increment.
  const active = Array.from({ length: 15_625 }, (_, i) => validator(i, 2048n * ETH));
  const f = networkFigures({
    ...base,
    slot: 320_000 * 32 + 5,
    active,
    // 25,600 ETH queued: 100 epochs of 256 ETH, then 1 + MAX_SEED_LOOKAHEAD to activation.
    pendingDeposits: [{ pubkey: `0x${"cd".repeat(48)}`, amount: String(25_600n * ETH) }],
    pendingPartials: [],
  });
  assert.equal(f.total_active_effective_balance, String(32_000_000n * ETH));
  assert.equal(f.balance_churn_limit, String(488n * ETH));
  assert.equal(f.activation_exit_churn_limit, String(256n * ETH));
  assert.equal(f.entry_queue.wait_epochs, 105);
  assert.equal(f.entry_queue.wait_seconds, 105 * 384);
  // No exit scheduled: the earliest is compute_activation_exit_epoch(current) = current + 5.
  assert.deepEqual(
    [f.exit_queue.validators, f.exit_queue.earliest_exit_epoch, f.exit_queue.wait_epochs],
    [0, 320_005, 5],
  );
});

test("a small network's churn is the minimum, and the exit queue ends at the latest exit or queued partial", () => {
  const epoch = 1000;
  const f = networkFigures({
    ...base,
    slot: epoch * 32,
    active: [
      validator(0, 32n * ETH),
      validator(1, 32n * ETH, String(epoch + 40)),
      validator(2, 32n * ETH, String(epoch + 20)),
      // Exited already (its exit epoch is not after the current one): not in the queue.
      validator(3, 32n * ETH, String(epoch)),
    ],
    pendingDeposits: [],
    // Withdrawable at epoch + 300: it took the exit churn of epoch + 300 − 256 = epoch + 44.
    pendingPartials: [{ validator_index: "0", amount: String(ETH), withdrawable_epoch: String(epoch + 300) }],
  });
  assert.equal(f.balance_churn_limit, String(128n * ETH));
  assert.equal(f.activation_exit_churn_limit, String(128n * ETH));
  assert.equal(f.exit_queue.validators, 2);
  assert.equal(f.exit_queue.balance, String(64n * ETH + 10n));
  assert.equal(f.exit_queue.earliest_exit_epoch, epoch + 44);
  assert.equal(f.exit_queue.wait_epochs, 44);
  assert.equal(f.entry_queue.wait_epochs, 5, "an empty queue: the activation delay alone");
});

test("an empty registry counts one increment of stake, as get_total_active_balance does", () => {
  const f = networkFigures({ ...base, slot: 0, active: [], pendingDeposits: [], pendingPartials: [] });
  assert.equal(f.total_active_effective_balance, String(ETH));
  assert.equal(f.active_validators, 0);
});

test("aprPercent: 32 ETH earning 1 ETH over a year of epochs is 3.125 %; no stake is null", () => {
  const epochsPerYear = (365n * 86_400n) / 384n; // 82,125 epochs of 384 s
  assert.equal(aprPercent(ETH, 32n * ETH * epochsPerYear, 384), 3.125);
  assert.equal(aprPercent(-ETH, 32n * ETH * epochsPerYear, 384), -3.125);
  assert.equal(aprPercent(5n, 0n, 384), null);
});

test("daysCovered: every epoch of the days, from the index's first to its last, after genesis", () => {
  // Genesis 2026-10-01 00:00 UTC, 384 s epochs (225 a day), epochs 225..449 indexed: day 1 exactly.
  const c = {
    genesisTime: 1_790_812_800,
    secondsPerSlot: 12,
    slotsPerEpoch: 32,
    firstEpoch: 225,
    epoch: 449,
  };
  const day = c.genesisTime / 86_400;
  assert.equal(daysCovered(c, day + 1, day + 1), true);
  assert.equal(daysCovered(c, day, day + 1), false, "day 0 is before the first epoch");
  assert.equal(daysCovered(c, day + 1, day + 2), false, "day 2 is past the last epoch");
  assert.equal(daysCovered({ ...c, firstEpoch: 0 }, day - 1, day + 1), false, "a day before genesis");
});
