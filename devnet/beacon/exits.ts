import { createHash } from "node:crypto";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { type ChainValidator, FAR_FUTURE, GWEI, MIN_ACTIVATION, type State } from "./chain-types.ts";

/**
 * The Electra rules that end a validator or move its stake, for the simulated chain (chain.ts): voluntary
 * exits (`process_voluntary_exit`, EIP-7044 domain), EIP-7002 withdrawal requests
 * (`process_withdrawal_request`), EIP-7251 consolidation and switch requests (`process_consolidation_request`),
 * the exit and consolidation churn (`compute_exit_epoch_and_update_churn`,
 * `compute_consolidation_epoch_and_update_churn`) and the pending partial withdrawals the sweep pays
 * (ethereum/consensus-specs, specs/electra/beacon-chain.md). Written apart from chain.ts so the request rules
 * read as the spec's functions; a request the chain would ignore returns the reason (the pool's 400 text).
 *
 * The devnet's epochs are compressed, so some constants are too (mainnet values in comments); the churn
 * limits are chosen so that a handful of 32 ETH validators has consolidation churn, which a real network
 * that small would not (its consolidation churn would be 0 and every consolidation ignored).
 */
export const DEVNET_ELECTRA = {
  /** Mainnet 256 epochs (~27 h). */
  SHARD_COMMITTEE_PERIOD: 2n,
  /** Mainnet 256 epochs. */
  MIN_VALIDATOR_WITHDRAWABILITY_DELAY: 2n,
  /** Mainnet 4: compute_activation_exit_epoch(e) = e + 1 + MAX_SEED_LOOKAHEAD. */
  MAX_SEED_LOOKAHEAD: 0n,
  /** As mainnet: 128 ETH. */
  MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA: 128n * GWEI,
  /** Mainnet 256 ETH; 64 here leaves 64 ETH a epoch of consolidation churn. */
  MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT: 64n * GWEI,
  CHURN_LIMIT_QUOTIENT: 65_536n,
  /** As mainnet (per withdrawals sweep). */
  MAX_PENDING_PARTIALS_PER_WITHDRAWALS_SWEEP: 8,
  PENDING_PARTIAL_WITHDRAWALS_LIMIT: 134_217_728,
  PENDING_CONSOLIDATIONS_LIMIT: 262_144,
  /** Voluntary exits per block (MAX_VOLUNTARY_EXITS). */
  MAX_VOLUNTARY_EXITS: 16,
} as const;

const C = DEVNET_ELECTRA;
export const DOMAIN_VOLUNTARY_EXIT = "0x04000000";

export interface SignedVoluntaryExit {
  message: { epoch: string; validator_index: string };
  signature: string;
}

const bytes = (hex: string) => Buffer.from(hex.replace(/^0x/, ""), "hex");
const sha256 = (...parts: Uint8Array[]) => {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
};
const chunk = (b: Uint8Array) => {
  const out = new Uint8Array(32);
  out.set(b.subarray(0, 32));
  return out;
};
const uint64 = (n: bigint) => {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setBigUint64(0, n, true);
  return out;
};

/** compute_domain(DOMAIN_VOLUNTARY_EXIT, CAPELLA_FORK_VERSION, genesis_validators_root) (EIP-7044). */
export function voluntaryExitDomain(capellaForkVersion: string, genesisValidatorsRoot: string): Uint8Array {
  const forkDataRoot = sha256(chunk(bytes(capellaForkVersion)), bytes(genesisValidatorsRoot));
  const domain = new Uint8Array(32);
  domain.set(bytes(DOMAIN_VOLUNTARY_EXIT));
  domain.set(forkDataRoot.subarray(0, 28), 4);
  return domain;
}

/** hash_tree_root(SigningData{hash_tree_root(VoluntaryExit), domain}). */
export function voluntaryExitSigningRoot(exit: SignedVoluntaryExit["message"], domain: Uint8Array) {
  const root = sha256(uint64(BigInt(exit.epoch)), uint64(BigInt(exit.validator_index)));
  return sha256(root, domain);
}

// bigint has no Math.min/max.
const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const isActive = (v: ChainValidator) => v.status === "active_ongoing" || v.status === "active_exiting";
const hasExecutionCredentials = (v: ChainValidator) => /^0x0[12]/.test(v.withdrawalCredentials);
const isCompounding = (v: ChainValidator) => v.withdrawalCredentials.startsWith("0x02");
const addressOf = (v: ChainValidator) => `0x${v.withdrawalCredentials.slice(-40)}`.toLowerCase();
const effective = (v: ChainValidator) => {
  const cap = isCompounding(v) ? 2048n * GWEI : MIN_ACTIVATION;
  return (min(v.balance, cap) / GWEI) * GWEI;
};

function balanceChurn(state: State): bigint {
  const total = state.validators.filter(isActive).reduce((a, v) => a + effective(v), 0n);
  const churn = total / C.CHURN_LIMIT_QUOTIENT;
  const limit = max(churn, C.MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA);
  return limit - (limit % GWEI);
}
const exitChurn = (state: State) => {
  const b = balanceChurn(state);
  return min(b, C.MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT);
};
const consolidationChurn = (state: State) => balanceChurn(state) - exitChurn(state);
const activationExitEpoch = (epoch: bigint) => epoch + 1n + C.MAX_SEED_LOOKAHEAD;

/** compute_exit_epoch_and_update_churn / compute_consolidation_epoch_and_update_churn (one shape). */
function consumeChurn(state: State, epoch: bigint, balance: bigint, kind: "exit" | "consolidation"): bigint {
  const c = state.churn;
  const [earliestNow, toConsumeNow, perEpoch] =
    kind === "exit"
      ? [c.earliestExitEpoch, c.exitBalanceToConsume, exitChurn(state)]
      : [c.earliestConsolidationEpoch, c.consolidationBalanceToConsume, consolidationChurn(state)];
  let earliest = max(earliestNow, activationExitEpoch(epoch));
  let toConsume = earliestNow < earliest ? perEpoch : toConsumeNow;
  if (balance > toConsume) {
    const additional = (balance - toConsume - 1n) / perEpoch + 1n;
    earliest += additional;
    toConsume += additional * perEpoch;
  }
  if (kind === "exit") {
    c.exitBalanceToConsume = toConsume - balance;
    c.earliestExitEpoch = earliest;
  } else {
    c.consolidationBalanceToConsume = toConsume - balance;
    c.earliestConsolidationEpoch = earliest;
  }
  return earliest;
}

/** initiate_validator_exit: the exit queue by churn, then the withdrawability delay. */
export function initiateValidatorExit(state: State, index: number, epoch: bigint): void {
  const v = state.validators[index];
  if (!v || v.exitEpoch !== FAR_FUTURE) return;
  v.exitEpoch = consumeChurn(state, epoch, effective(v), "exit");
  v.withdrawableEpoch = v.exitEpoch + C.MIN_VALIDATOR_WITHDRAWABILITY_DELAY;
  v.status = "active_exiting";
}

export const pendingBalanceToWithdraw = (state: State, index: number) =>
  state.partials.filter((p) => p.index === index).reduce((a, p) => a + p.amount, 0n);

/** The checks every exit path shares (active, not exiting, active long enough); the failure or null. */
function exitable(v: ChainValidator | undefined, epoch: bigint): string | null {
  if (!v) return "unknown validator";
  if (!isActive(v)) return "validator is not active";
  if (v.exitEpoch !== FAR_FUTURE) return "validator has already initiated exit";
  if (epoch < v.activationEpoch + C.SHARD_COMMITTEE_PERIOD)
    return "validator has not been active long enough (SHARD_COMMITTEE_PERIOD)";
  return null;
}

/** process_voluntary_exit (Electra, EIP-7044 domain); the reason it is invalid, or null once applied. */
export function processVoluntaryExit(
  state: State,
  epoch: bigint,
  exit: SignedVoluntaryExit,
  domain: Uint8Array,
): string | null {
  const index = Number(exit.message.validator_index);
  const v = state.validators[index];
  const refused = exitable(v, epoch);
  if (refused || !v) return refused;
  if (epoch < BigInt(exit.message.epoch)) return "exit epoch is in the future";
  if (pendingBalanceToWithdraw(state, index) !== 0n) return "validator has pending partial withdrawals";
  const L = bls12_381.longSignatures;
  let ok = false;
  try {
    const point = L.hash(
      voluntaryExitSigningRoot(exit.message, domain),
      "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_",
    );
    ok = L.verify(bytes(exit.signature), point, bytes(v.pubkey));
  } catch {}
  if (!ok) return "invalid signature";
  initiateValidatorExit(state, index, epoch);
  return null;
}

/** process_withdrawal_request (EIP-7002): a full exit (amount 0) or a partial withdrawal of a 0x02 validator. */
export function processWithdrawalRequest(
  state: State,
  epoch: bigint,
  req: { source_address: string; validator_pubkey: string; amount: bigint },
): void {
  const full = req.amount === 0n;
  if (!full && state.partials.length >= C.PENDING_PARTIAL_WITHDRAWALS_LIMIT) return;
  const index = state.validators.findIndex((v) => v.pubkey === req.validator_pubkey.toLowerCase());
  const v = state.validators[index];
  if (!v || !hasExecutionCredentials(v) || addressOf(v) !== req.source_address.toLowerCase()) return;
  if (exitable(v, epoch)) return;
  const pending = pendingBalanceToWithdraw(state, index);
  if (full) {
    if (pending === 0n) initiateValidatorExit(state, index, epoch);
    return;
  }
  if (isCompounding(v) && effective(v) >= MIN_ACTIVATION && v.balance > MIN_ACTIVATION + pending) {
    const available = v.balance - MIN_ACTIVATION - pending;
    const amount = min(available, req.amount);
    const exitQueueEpoch = consumeChurn(state, epoch, amount, "exit");
    state.partials.push({
      index,
      amount,
      withdrawableEpoch: exitQueueEpoch + C.MIN_VALIDATOR_WITHDRAWABILITY_DELAY,
    });
  }
}

/** process_consolidation_request (EIP-7251): switch to compounding (source = target) or a consolidation. */
export function processConsolidationRequest(
  state: State,
  epoch: bigint,
  req: { source_address: string; source_pubkey: string; target_pubkey: string },
): void {
  const source = req.source_pubkey.toLowerCase();
  const target = req.target_pubkey.toLowerCase();
  const i = state.validators.findIndex((v) => v.pubkey === source);
  const t = state.validators.findIndex((v) => v.pubkey === target);
  const from = state.validators[i];
  const to = state.validators[t];
  if (!from || addressOf(from) !== req.source_address.toLowerCase()) return;
  if (source === target) {
    // is_valid_switch_to_compounding_request, then switch_to_compounding_validator.
    if (!from.withdrawalCredentials.startsWith("0x01") || !isActive(from) || from.exitEpoch !== FAR_FUTURE)
      return;
    from.withdrawalCredentials = `0x02${from.withdrawalCredentials.slice(4)}`;
    // queue_excess_active_balance: above 32 ETH goes back through the deposit queue (slot 0 marks it).
    if (from.balance > MIN_ACTIVATION) {
      state.pending.push({
        pubkey: from.pubkey,
        withdrawal_credentials: from.withdrawalCredentials,
        amount: from.balance - MIN_ACTIVATION,
        signature: `0xc0${"00".repeat(95)}`,
        slot: 0,
      });
      from.balance = MIN_ACTIVATION;
    }
    return;
  }
  if (state.consolidations.length >= C.PENDING_CONSOLIDATIONS_LIMIT) return;
  if (consolidationChurn(state) <= MIN_ACTIVATION) return;
  if (!to || !hasExecutionCredentials(from) || !isCompounding(to)) return;
  if (exitable(from, epoch) || !isActive(to) || to.exitEpoch !== FAR_FUTURE) return;
  if (pendingBalanceToWithdraw(state, i) > 0n) return;
  from.exitEpoch = consumeChurn(state, epoch, effective(from), "consolidation");
  from.withdrawableEpoch = from.exitEpoch + C.MIN_VALIDATOR_WITHDRAWABILITY_DELAY;
  from.status = "active_exiting";
  state.consolidations.push({ source: i, target: t });
}

/**
 * The pending partial withdrawals the sweep pays in a block of `epoch` (get_expected_withdrawals, Electra):
 * those withdrawable by now, at most 8, each capped at the balance above 32 ETH of a validator that is not
 * exiting; taken off the queue whether paid or not, as the spec does.
 */
export function takeDuePartials(state: State, epoch: bigint): { index: number; amount: bigint }[] {
  const due: { index: number; amount: bigint }[] = [];
  let processed = 0;
  for (const p of state.partials) {
    if (p.withdrawableEpoch > epoch || processed === C.MAX_PENDING_PARTIALS_PER_WITHDRAWALS_SWEEP) break;
    processed++;
    const v = state.validators[p.index];
    if (v && v.exitEpoch === FAR_FUTURE && effective(v) >= MIN_ACTIVATION && v.balance > MIN_ACTIVATION) {
      const excess = v.balance - MIN_ACTIVATION;
      due.push({ index: p.index, amount: min(excess, p.amount) });
    }
  }
  state.partials.splice(0, processed);
  return due;
}
