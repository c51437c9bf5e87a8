import type { ApiPendingDeposit, ApiPendingPartialWithdrawal, ApiValidator, ChurnSpec } from "./client.ts";

/** FAR_FUTURE_EPOCH: an exit epoch not set. */
const FAR_FUTURE = 2n ** 64n - 1n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

export interface NetworkState {
  slot: number;
  slotsPerEpoch: number;
  secondsPerSlot: number;
  genesisTime: number;
  spec: ChurnSpec;
  /** The state's active validators (status class `active`: ongoing, exiting, slashed). */
  active: ApiValidator[];
  pendingDeposits: ApiPendingDeposit[];
  pendingPartials: ApiPendingPartialWithdrawal[];
}

/**
 * The network's figures from one state, by Electra's rules (consensus-specs electra/beacon-chain.md):
 * `get_total_active_balance` (Σ effective balances, at least one increment), `get_balance_churn_limit`
 * (max(MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA, total ÷ CHURN_LIMIT_QUOTIENT), floored to the increment) and
 * `get_activation_exit_churn_limit` (capped at MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT). The Beacon API
 * does not serve `earliest_exit_epoch` nor `deposit_balance_to_consume`: the first is rebuilt from what
 * consumed the exit churn (the exit epochs of exiting validators and the exit-queue epoch of each pending
 * partial withdrawal, its withdrawable epoch − MIN_VALIDATOR_WITHDRAWABILITY_DELAY); the second, always
 * below one epoch's churn, is left out, so the entry wait may read up to one epoch long. Pure, bigint.
 */
export function networkFigures(s: NetworkState) {
  const c = s.spec;
  const epoch = BigInt(Math.floor(s.slot / s.slotsPerEpoch));
  const increment = BigInt(c.EFFECTIVE_BALANCE_INCREMENT);
  let effective = 0n;
  let stake = 0n;
  let exiting = 0;
  let exitingBalance = 0n;
  let lastExit = 0n;
  for (const v of s.active) {
    effective += BigInt(v.validator.effective_balance);
    stake += BigInt(v.balance);
    const exit = BigInt(v.validator.exit_epoch ?? FAR_FUTURE);
    if (exit !== FAR_FUTURE && exit > epoch) {
      exiting++;
      exitingBalance += BigInt(v.balance);
      lastExit = max(lastExit, exit);
    }
  }
  const delay = BigInt(c.MIN_VALIDATOR_WITHDRAWABILITY_DELAY);
  for (const w of s.pendingPartials) lastExit = max(lastExit, BigInt(w.withdrawable_epoch) - delay);
  const totalActive = max(increment, effective);
  const rawChurn = max(
    BigInt(c.MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA),
    totalActive / BigInt(c.CHURN_LIMIT_QUOTIENT),
  );
  const balanceChurn = rawChurn - (rawChurn % increment);
  const activationExitChurn = min(BigInt(c.MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT), balanceChurn);

  // compute_activation_exit_epoch: the earliest an exit, or an activation, can take effect.
  const activationExitEpoch = epoch + 1n + BigInt(c.MAX_SEED_LOOKAHEAD);
  const queued = s.pendingDeposits.reduce((sum, d) => sum + BigInt(d.amount), 0n);
  // process_pending_deposits takes up to the churn an epoch; a deposit applied is then activated at the
  // activation-exit epoch of the epoch it was applied in.
  const entryWait = ceilDiv(queued, activationExitChurn) + 1n + BigInt(c.MAX_SEED_LOOKAHEAD);
  const earliestExit = max(lastExit, activationExitEpoch);
  const exitWait = earliestExit - epoch;
  const epochSeconds = BigInt(s.slotsPerEpoch * s.secondsPerSlot);
  return {
    slot: s.slot,
    epoch: Number(epoch),
    time: new Date((s.genesisTime + s.slot * s.secondsPerSlot) * 1000).toISOString(),
    active_validators: s.active.length,
    total_active_stake: stake.toString(),
    total_active_effective_balance: totalActive.toString(),
    balance_churn_limit: balanceChurn.toString(),
    activation_exit_churn_limit: activationExitChurn.toString(),
    entry_queue: {
      pending_deposits: s.pendingDeposits.length,
      pending_balance: queued.toString(),
      wait_epochs: Number(entryWait),
      wait_seconds: Number(entryWait * epochSeconds),
    },
    exit_queue: {
      validators: exiting,
      balance: exitingBalance.toString(),
      pending_partial_withdrawals: s.pendingPartials.length,
      earliest_exit_epoch: Number(earliestExit),
      wait_epochs: Number(exitWait),
      wait_seconds: Number(exitWait * epochSeconds),
    },
  };
}
