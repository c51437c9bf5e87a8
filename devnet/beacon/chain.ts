import { createHash } from "node:crypto";
import type { Address, Hex } from "viem";
import {
  type Block,
  type ChainValidator,
  type ElPayment,
  EPOCHS_PER_YEAR,
  FAR_FUTURE,
  GWEI,
  MAX_EFFECTIVE_ELECTRA,
  MIN_ACTIVATION,
  type PendingDeposit,
  type State,
  type Withdrawal,
} from "./chain-types.ts";
import { BUILDERS, type ExecutionNode } from "./execution.ts";
import {
  initiateValidatorExit,
  processConsolidationRequest,
  processVoluntaryExit,
  processWithdrawalRequest,
  type SignedVoluntaryExit,
  takeDuePartials,
} from "./exits.ts";
import { requestsFromLogs } from "./requests.ts";

export { type Block, type ChainValidator, type ElPayment, FAR_FUTURE, type PendingDeposit, type Withdrawal };

/**
 * The simulated beacon chain: a simplified Electra state transition that keeps the quantities the data
 * area measures exact and consistent. Per epoch: attestation rewards on active balances (with the odd missed
 * attestation), pending deposits applied after a one-epoch wait (at most 16), the activation queue one epoch
 * per step, exits by their exit and withdrawable epochs. Per slot: a proposer (reward 0.02-0.05 ETH), the
 * withdrawal sweep (full for withdrawable validators, partial above the max effective balance, due EIP-7002
 * partials), the pool's voluntary exits, and, with an execution node, a real anvil block whose deposit and
 * request logs become the block's execution requests. Exits, EIP-7002 and EIP-7251 requests follow Electra's
 * rules in exits.ts (churn, SHARD_COMMITTEE_PERIOD, withdrawability delay, compressed); a consolidation moves
 * the source's effective balance to the (compounding) target at the epoch transition where the source
 * becomes withdrawable, as `process_pending_consolidations` does.
 */

const sha = (s: string): Hex => `0x${createHash("sha256").update(s).digest("hex")}`;
const minBig = (a: bigint, b: bigint) => (a < b ? a : b);
const clone = (s: State): State => structuredClone(s);
const maxEffective = (wc: string) => (wc.startsWith("0x02") ? MAX_EFFECTIVE_ELECTRA : MIN_ACTIVATION);
/** Effective balance: the balance capped by the credentials' maximum, in whole ETH. */
export const effectiveBalance = (v: ChainValidator) =>
  (minBig(v.balance, maxEffective(v.withdrawalCredentials)) / GWEI) * GWEI;
const addressOf = (wc: string) => (/^0x0[12]/.test(wc) ? `0x${wc.slice(-40)}` : null);

/** Pubkey of background validator `i` (a fixed 48-byte value; the simulation verifies no signatures). */
export const backgroundPubkey = (i: number) =>
  `0x${createHash("sha384").update(`background-${i}`).digest("hex")}`;

export interface ChainOptions {
  slotsPerEpoch: number;
  secondsPerSlot: number;
  genesisTime: number;
  execution?: ExecutionNode;
  /** Validators active from genesis that propose and attest beside the tracked ones. */
  backgroundValidators?: number;
  /** The network's voluntary-exit signing domain (exits.ts `voluntaryExitDomain`). */
  exitDomain?: Uint8Array;
  /** Share of slots (0–1) whose block a builder makes (MEV-boost), as most of mainnet's; default 0.4. */
  builderShare?: number;
  /**
   * First Electra epoch (default 0). Blocks before it are Deneb blocks (no execution requests) and their
   * states have no pending queues (the node answers 400), as on a chain that forked later.
   */
  electraForkEpoch?: number;
}

export function createChain(opts: ChainOptions) {
  const S = opts.slotsPerEpoch;
  let state: State = {
    validators: [],
    pending: [],
    exitRequests: [],
    partials: [],
    consolidations: [],
    withdrawalIndex: 0,
    nextSweep: 0,
    churn: {
      earliestExitEpoch: 0n,
      exitBalanceToConsume: 0n,
      earliestConsolidationEpoch: 0n,
      consolidationBalanceToConsume: 0n,
    },
  };
  // The node's voluntary-exit pool (not chain state: a re-org does not empty it).
  const exitPool: SignedVoluntaryExit[] = [];
  const exitDomain = opts.exitDomain ?? new Uint8Array(32);
  for (let i = 0; i < (opts.backgroundValidators ?? 0); i++) {
    state.validators.push({
      pubkey: backgroundPubkey(i),
      withdrawalCredentials: `0x01${"00".repeat(11)}${createHash("sha256").update(`bg-${i}`).digest("hex").slice(0, 40)}`,
      balance: MIN_ACTIVATION,
      status: "active_ongoing",
      eligibilityEpoch: 0n,
      activationEpoch: 0n,
      exitEpoch: FAR_FUTURE,
      withdrawableEpoch: FAR_FUTURE,
    });
  }
  let head = 0;
  let fork = 0;
  const states = new Map<number, State>([[0, clone(state)]]);
  const blocks = new Map<number, Block>();
  const elSnapshots = new Map<number, Hex>();
  // What each proposer received on the execution layer, by slot (re-orgs replace it with the blocks).
  const elPayments = new Map<number, ElPayment>();
  const electraForkEpoch = opts.electraForkEpoch ?? 0;
  // What each validator client is configured with (survives re-orgs: it is not chain state).
  const feeRecipients = new Map<string, Address>();
  const genesisRoot = sha("genesis");
  const rand = (slot: number, salt: string) =>
    Number.parseInt(createHash("sha256").update(`${fork}:${slot}:${salt}`).digest("hex").slice(0, 12), 16) /
    2 ** 48;
  const epochOf = (slot: number) => Math.floor(slot / S);
  const finalizedEpoch = () => Math.max(0, epochOf(head) - 2);
  const slotTime = (slot: number) => opts.genesisTime + slot * opts.secondsPerSlot;
  const find = (pubkey: string) => state.validators.findIndex((v) => v.pubkey === pubkey.toLowerCase());
  const isActive = (v: ChainValidator) => v.status === "active_ongoing" || v.status === "active_exiting";

  function epochTransition(epoch: number) {
    const e = BigInt(epoch);
    state.validators.forEach((v, i) => {
      if (isActive(v)) {
        // ~2.8 % a year on the effective balance; a missed attestation costs about the same.
        const reward = (effectiveBalance(v) * 28n) / (1000n * EPOCHS_PER_YEAR);
        v.balance += rand(epoch * S, `att-${i}`) < 0.03 ? -(reward * 8n) / 10n : reward;
      }
      if (v.status === "pending_initialized" && e >= v.eligibilityEpoch) {
        v.status = "pending_queued";
        v.activationEpoch = e + 1n;
      } else if (v.status === "pending_queued" && e >= v.activationEpoch) v.status = "active_ongoing";
      else if (v.status === "active_exiting" && e >= v.exitEpoch) v.status = "exited_unslashed";
      else if (v.status === "exited_unslashed" && e >= v.withdrawableEpoch) v.status = "withdrawal_possible";
    });
    for (const index of state.exitRequests.splice(0)) {
      if (state.validators[index]?.status === "active_ongoing") initiateValidatorExit(state, index, e);
    }
    state.consolidations = state.consolidations.filter(({ source, target }) => {
      const from = state.validators[source] as ChainValidator;
      const to = state.validators[target] as ChainValidator;
      if (from.withdrawableEpoch > e) return true;
      const moved = effectiveBalance(from);
      from.balance -= moved;
      to.balance += moved;
      return false;
    });
    const ready = state.pending.filter((d) => d.slot < (epoch - 1) * S).slice(0, 16);
    state.pending = state.pending.filter((d) => !ready.includes(d));
    for (const d of ready) {
      const i = find(d.pubkey);
      const v = state.validators[i];
      if (v) v.balance += d.amount;
      else {
        state.validators.push({
          pubkey: d.pubkey,
          withdrawalCredentials: d.withdrawal_credentials,
          balance: d.amount,
          status: "pending_initialized",
          eligibilityEpoch: e + 1n,
          activationEpoch: FAR_FUTURE,
          exitEpoch: FAR_FUTURE,
          withdrawableEpoch: FAR_FUTURE,
        });
      }
    }
  }

  function sweep(slot: number): Withdrawal[] {
    const out: Withdrawal[] = [];
    const pay = (index: number, amount: bigint) => {
      const v = state.validators[index];
      const address = v && addressOf(v.withdrawalCredentials);
      if (!v || !address || amount <= 0n) return;
      v.balance -= amount;
      out.push({
        index: String(state.withdrawalIndex++),
        validator_index: String(index),
        address,
        amount: String(amount),
      });
      if (v.balance === 0n && v.status === "withdrawal_possible") v.status = "withdrawal_done";
    };
    for (const p of takeDuePartials(state, BigInt(epochOf(slot)))) pay(p.index, p.amount);
    const n = state.validators.length;
    for (let k = 0; k < Math.min(n, 16_384) && out.length < 16; k++) {
      const i = (state.nextSweep + k) % n;
      const v = state.validators[i];
      if (!v) continue;
      if (v.status === "withdrawal_possible") pay(i, v.balance);
      else if (v.status === "active_ongoing" && v.balance > maxEffective(v.withdrawalCredentials)) {
        pay(i, v.balance - maxEffective(v.withdrawalCredentials));
      }
      if (k === Math.min(n, 16_384) - 1 || out.length === 16) state.nextSweep = (i + 1) % n;
    }
    return out;
  }

  /** Applies a block's execution requests (EIP-6110 deposits, EIP-7002 and EIP-7251 requests) to the state. */
  function applyRequests(slot: number, req: Block["requests"]) {
    for (const d of req.deposits) {
      state.pending.push({
        pubkey: d.pubkey,
        withdrawal_credentials: d.withdrawal_credentials,
        amount: BigInt(d.amount),
        signature: d.signature,
        slot,
      });
    }
    for (const w of req.withdrawals) {
      processWithdrawalRequest(state, BigInt(epochOf(slot)), { ...w, amount: BigInt(w.amount) });
    }
    for (const c of req.consolidations) processConsolidationRequest(state, BigInt(epochOf(slot)), c);
  }

  async function propose(slot: number, forced?: string, builderBlock?: boolean): Promise<Block | undefined> {
    const active = state.validators.map((v, i) => [v, i] as const).filter(([v]) => isActive(v));
    const forcedIndex = forced ? find(forced) : -1;
    const pick =
      forcedIndex >= 0 ? forcedIndex : active[Math.floor(rand(slot, "proposer") * active.length)]?.[1];
    if (pick === undefined) return undefined;
    const proposer = state.validators[pick] as ChainValidator;
    proposer.balance += 20_000_000n + BigInt(Math.floor(rand(slot, "proposal") * 30_000_000));
    const withdrawals = sweep(slot);
    // The pool's exits, checked again against this block's state (one may have become invalid meanwhile).
    const voluntaryExits = exitPool
      .splice(0, 16)
      .filter((x) => processVoluntaryExit(state, BigInt(epochOf(slot)), x, exitDomain) === null);
    let requests: Block["requests"] = { deposits: [], withdrawals: [], consolidations: [] };
    const feeRecipient = (feeRecipients.get(proposer.pubkey) ??
      addressOf(proposer.withdrawalCredentials) ??
      `0x${"fe".repeat(20)}`) as Address;
    const parent = [...blocks.values()].at(-1);
    let payload: Block["payload"];
    const ex = opts.execution;
    if (ex) {
      elSnapshots.set(slot, await ex.snapshot());
      for (const w of withdrawals) await ex.credit(w.address as Address, BigInt(w.amount) * GWEI);
      const builder = builderBlock ?? rand(slot, "builder") < (opts.builderShare ?? 0.4);
      const el = await ex.produceBlock({
        timestamp: slotTime(slot),
        feeRecipient,
        builderPaymentWei: builder ? BigInt(1 + Math.floor(rand(slot, "bid") * 50)) * 1_000_000n * GWEI : 0n,
        builder: BUILDERS[Math.floor(rand(slot, "which-builder") * BUILDERS.length)] as Address,
        trafficTxs: 2,
        tipGwei: 1 + Math.floor(rand(slot, "tip") * 3),
      });
      requests = requestsFromLogs(el.logs as never);
      applyRequests(slot, requests);
      elPayments.set(slot, {
        slot,
        blockNumber: el.number,
        proposerIndex: pick,
        pubkey: proposer.pubkey,
        feeRecipient: feeRecipient.toLowerCase(),
        builder: el.paid.builder?.toLowerCase() ?? null,
        mevWei: el.paid.mevWei,
        priorityFeeWei: el.paid.priorityFeeWei,
      });
      payload = {
        parent_hash: el.parentHash,
        fee_recipient: el.feeRecipient.toLowerCase(),
        ...el.payload,
        block_number: String(el.number),
        block_hash: el.hash,
        timestamp: String(el.timestamp),
        withdrawals,
      };
    } else {
      const n = (parent ? Number(parent.payload.block_number) : 0) + 1;
      // No execution node: a payload of the right shape, empty.
      const zero = (bytes: number) => `0x${"00".repeat(bytes)}`;
      payload = {
        parent_hash: parent?.payload.block_hash ?? zero(32),
        fee_recipient: feeRecipient.toLowerCase(),
        state_root: zero(32),
        receipts_root: zero(32),
        logs_bloom: zero(256),
        prev_randao: zero(32),
        block_number: String(n),
        gas_limit: "30000000",
        gas_used: "0",
        timestamp: String(slotTime(slot)),
        extra_data: "0x",
        base_fee_per_gas: "7",
        block_hash: sha(`el:${fork}:${slot}`),
        transactions: [],
        withdrawals,
        blob_gas_used: "0",
        excess_blob_gas: "0",
      };
    }
    const parentRoot = parent?.root ?? genesisRoot;
    const root = sha(`${fork}:${slot}:${parentRoot}:${payload.block_hash}`);
    const version = epochOf(slot) >= electraForkEpoch ? "electra" : "deneb";
    return { slot, version, root, parentRoot, proposerIndex: pick, payload, requests, voluntaryExits };
  }

  async function produceSlot(opts2: { proposer?: string; skip?: boolean; builder?: boolean } = {}) {
    const slot = head + 1;
    if (slot % S === 0) epochTransition(epochOf(slot));
    const block = opts2.skip ? undefined : await propose(slot, opts2.proposer, opts2.builder);
    if (block) blocks.set(slot, block);
    head = slot;
    states.set(slot, clone(state));
    const keep = slot - 4096;
    states.delete(keep);
    return block;
  }

  return {
    slotsPerEpoch: S,
    get head() {
      return head;
    },
    get state() {
      return state;
    },
    finalizedEpoch,
    electraForkEpoch,
    slotTime,
    /** What each proposer received on the execution layer (the devnet's record), by slot. */
    elPayments: () => [...elPayments.values()].sort((a, b) => a.slot - b.slot),
    find,
    produceSlot,
    /** State after `slot` (the head state for slots not produced yet is not served). */
    stateAt: (slot: number) => states.get(slot),
    blockAt: (slot: number) => blocks.get(slot),
    /** The latest block at or before `slot`. */
    latestBlock(slot = head) {
      for (let s = slot; s > 0; s--) {
        const b = blocks.get(s);
        if (b) return b;
      }
      return undefined;
    },
    blockByRoot: (root: string) => [...blocks.values()].find((b) => b.root === root),
    /** Replaces the last `depth` slots (not yet finalized) with other blocks: a re-org. */
    async reorg(depth: number) {
      const target = head - depth;
      if (target < (finalizedEpoch() + 1) * S) throw new Error("cannot re-org finalized slots");
      const snap = elSnapshots.get(target + 1) ?? [...elSnapshots.entries()].find(([s]) => s > target)?.[1];
      if (opts.execution && snap) await opts.execution.revert(snap);
      for (let s = target + 1; s <= head; s++) {
        blocks.delete(s);
        states.delete(s);
        elSnapshots.delete(s);
        elPayments.delete(s);
      }
      state = clone(states.get(target) as State);
      head = target;
      fork++;
      for (let i = 0; i < depth; i++) await produceSlot();
    },
    /** Puts a validator straight into the head state (tests of add-stake). */
    setValidator(v: { pubkey: string; withdrawal_credentials: string; balance: bigint; status: string }) {
      const i = find(v.pubkey);
      const entry: ChainValidator = {
        pubkey: v.pubkey.toLowerCase(),
        withdrawalCredentials: v.withdrawal_credentials,
        balance: v.balance,
        status: v.status,
        eligibilityEpoch: 0n,
        activationEpoch: v.status.startsWith("pending") ? FAR_FUTURE : 0n,
        exitEpoch: FAR_FUTURE,
        withdrawableEpoch: FAR_FUTURE,
      };
      if (i >= 0) state.validators[i] = { ...state.validators[i], ...entry };
      else state.validators.push(entry);
      states.set(head, clone(state));
    },
    addPendingDeposit(d: Omit<PendingDeposit, "slot">) {
      state.pending.push({ ...d, slot: head });
      states.set(head, clone(state));
    },
    setFeeRecipient(pubkey: string, address: Address) {
      feeRecipients.set(pubkey.toLowerCase(), address);
    },
    /**
     * POST /eth/v1/beacon/pool/voluntary_exits: the exit is checked against the head state (as the next
     * block would process it) and pooled for the next block; the reason it is invalid otherwise.
     */
    submitVoluntaryExit(exit: SignedVoluntaryExit): string | null {
      if (exitPool.some((x) => x.message.validator_index === exit.message.validator_index)) return null;
      const refused = processVoluntaryExit(clone(state), BigInt(epochOf(head + 1)), exit, exitDomain);
      if (!refused) exitPool.push(exit);
      return refused;
    },
    requestExit(pubkey: string) {
      const i = find(pubkey);
      if (i >= 0) state.exitRequests.push(i);
    },
  };
}

export type Chain = ReturnType<typeof createChain>;
