import type { Hex } from "viem";
import type { ApiPendingConsolidation, ApiValidator, BeaconApi, ChainSpec, ExecutionApi } from "./client.ts";
import { type Lifecycle, later, lifecycleOf, transitions } from "./lifecycle.ts";

/** What one epoch means for the tracked validators; written in one transaction by indexer-repo.ts. */
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

export interface EpochData {
  epoch: number;
  slots: { slot: number; root: string | null }[];
  rewards: { validatorIndex: number; balanceGwei: bigint; clRewardGwei: bigint; elRewardGwei: bigint }[];
  validators: {
    pubkey: string;
    validatorIndex: number | null;
    beaconStatus: string | null;
    lifecycle: Lifecycle;
    withdrawalCredentials: string | null;
    feeRecipient: string | null;
    balanceGwei: bigint;
  }[];
  history: { pubkey: string; status: Lifecycle; time: Date; epoch: number }[];
  transactions: TransactionRow[];
}

export const SYSTEM_CONTRACTS = {
  withdrawals: "0x00000961ef480eb55e80d19ad83579a64c007002",
  consolidations: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
} as const;
const DEPOSIT_TOPIC = "0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5";
const WEI_PER_GWEI = 1_000_000_000n;

/** `fn` over `items` with at most `limit` calls in flight; results in input order. */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const run = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, run));
  return out;
}

/** Dynamic `bytes` field `i` of an ABI-encoded DepositEvent's data (offsets are in the head). */
function abiBytes(data: string, i: number): string {
  const hex = data.slice(2);
  const offset = Number.parseInt(hex.slice(i * 64, i * 64 + 64), 16) * 2;
  const length = Number.parseInt(hex.slice(offset, offset + 64), 16) * 2;
  return `0x${hex.slice(offset + 64, offset + 64 + length)}`;
}
const le64 = (h: string) => Buffer.from(h.slice(2), "hex").readBigUInt64LE(0);
const addressOfCredentials = (wc: string) => (/^0x0[12]/.test(wc) ? `0x${wc.slice(-40)}` : null);

/**
 * Reads epoch `epoch` from the nodes. CL reward = balance at the end of the epoch − balance at the end of
 * the previous one − deposits applied in between (pending before + deposit requests in the epoch's blocks −
 * pending after) + withdrawals paid in the epoch's blocks ± balance moved by consolidations: a top-up, a
 * withdrawal or a consolidation is never a reward.
 * EL reward = for each block the validator proposed, the priority fees when the payload pays its fee
 * recipient, plus what the block's fee recipient (a builder) paid it in the block.
 */
export async function readEpoch(
  deps: { beacon: BeaconApi; execution: ExecutionApi; spec: ChainSpec; depositContract: string },
  epoch: number,
  tracked: TrackedValidator[],
): Promise<EpochData> {
  const { beacon, execution, spec } = deps;
  const S = spec.slotsPerEpoch;
  const first = epoch * S;
  const last = first + S - 1;
  const slotTime = (slot: number) => spec.genesisTime + slot * spec.secondsPerSlot;
  const pubkeys = tracked.map((t) => t.pubkey);
  const byPubkey = new Map(tracked.map((t) => [t.pubkey, t]));

  const before = pubkeys.length && first > 0;
  const [cur, prev, pendingCur, pendingPrev, consolidatingCur, consolidatingPrev] = await Promise.all([
    beacon.validators(last, pubkeys),
    first > 0 ? beacon.validators(first - 1, pubkeys) : Promise.resolve([]),
    pubkeys.length ? beacon.pendingDeposits(last) : Promise.resolve([]),
    before ? beacon.pendingDeposits(first - 1) : Promise.resolve([]),
    before ? beacon.pendingConsolidations(last) : Promise.resolve([]),
    before ? beacon.pendingConsolidations(first - 1) : Promise.resolve([]),
  ]);
  const pendingSum = (list: { pubkey: string; amount: string }[]) => {
    const m = new Map<string, bigint>();
    for (const d of list) {
      const k = d.pubkey.toLowerCase();
      if (byPubkey.has(k)) m.set(k, (m.get(k) ?? 0n) + BigInt(d.amount));
    }
    return m;
  };
  const applied = pendingSum(pendingPrev);
  for (const [k, v] of pendingSum(pendingCur)) applied.set(k, (applied.get(k) ?? 0n) - v);
  const curByIndex = new Map(cur.map((v) => [Number(v.index), v]));
  const curByPubkey = new Map(cur.map((v) => [v.validator.pubkey.toLowerCase(), v]));
  const pendingNow = new Set(pendingCur.map((d) => d.pubkey.toLowerCase()));
  const prevBalance = new Map(prev.map((v) => [Number(v.index), BigInt(v.balance)]));
  const moved = await consolidated(beacon, first - 1, prev, consolidatingPrev, consolidatingCur, curByIndex);
  const withdrawn = new Map<number, bigint>();
  const el = new Map<number, bigint>();
  const feeRecipientOf = new Map<string, string>();
  const slots: EpochData["slots"] = [];
  const transactions: TransactionRow[] = [];
  const observed = new Map<string, { status: Lifecycle; time: Date }[]>();
  const observe = (pubkey: string, status: Lifecycle, time: Date) =>
    observed.set(pubkey, [...(observed.get(pubkey) ?? []), { status, time }]);

  // The node round trips of all slots first, a few at a time; then the epoch is computed in slot order.
  const addresses = [
    deps.depositContract as Hex,
    SYSTEM_CONTRACTS.withdrawals,
    SYSTEM_CONTRACTS.consolidations,
  ];
  const fetched = await mapLimit(
    Array.from({ length: S }, (_, i) => first + i),
    8,
    async (slot) => {
      const [root, block] = await Promise.all([beacon.blockRoot(slot), beacon.block(slot)]);
      const hash = block?.message.body.execution_payload?.block_hash as Hex | undefined;
      if (!block || !hash || root === null) return { slot, root, block: null, el: null, logs: [] };
      const tracked = curByIndex.has(Number(block.message.proposer_index));
      const [el, logs] = await Promise.all([
        tracked ? Promise.all([execution.block(hash), execution.receipts(hash)]) : null,
        execution.logs(hash, addresses),
      ]);
      return { slot, root, block, el, logs };
    },
  );
  for (const { slot, root, block, el: elData, logs } of fetched) {
    slots.push({ slot, root });
    const payload = block?.message.body.execution_payload;
    if (!block || !payload || root === null) continue;
    const blockHash = payload.block_hash as Hex;
    const blockNumber = Number(payload.block_number);
    const timestamp = Number(payload.timestamp);
    for (const d of block.message.body.execution_requests?.deposits ?? []) {
      const k = d.pubkey.toLowerCase();
      if (byPubkey.has(k)) applied.set(k, (applied.get(k) ?? 0n) + BigInt(d.amount));
    }
    for (const w of payload.withdrawals ?? []) {
      const index = Number(w.validator_index);
      const v = curByIndex.get(index);
      if (!v) continue;
      withdrawn.set(index, (withdrawn.get(index) ?? 0n) + BigInt(w.amount));
      const full = /^(exited|withdrawal)/.test(v.status);
      transactions.push({
        uid: `cl:${w.index}`,
        pubkey: v.validator.pubkey.toLowerCase(),
        type: full ? "FULL_WITHDRAWAL" : "PARTIAL_EXIT",
        layer: "CONSENSUS_LAYER",
        // A withdrawal has no transaction: the execution block that paid it stands in for the hash.
        transactionHash: blockHash,
        blockNumber,
        blockTimestamp: timestamp,
        data: "0x",
        feeGwei: 0n,
        from: "0x0000000000000000000000000000000000000000",
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
    // elData was fetched exactly when the proposer is tracked.
    if (proposer && elData) {
      const pk = proposer.validator.pubkey.toLowerCase();
      const feeRecipient = (byPubkey.get(pk)?.feeRecipient ?? payload.fee_recipient).toLowerCase();
      feeRecipientOf.set(pk, payload.fee_recipient.toLowerCase());
      const [elBlock, receipts] = elData;
      const coinbase = payload.fee_recipient.toLowerCase();
      let wei = 0n;
      if (coinbase === feeRecipient) {
        for (const r of receipts) wei += r.gasUsed * (r.effectiveGasPrice - (elBlock.baseFeePerGas ?? 0n));
      }
      const ok = new Set(receipts.filter((r) => r.status === "success").map((r) => r.transactionHash));
      for (const tx of elBlock.transactions) {
        const from = tx.from.toLowerCase();
        if (
          tx.to?.toLowerCase() === feeRecipient &&
          from === coinbase &&
          from !== feeRecipient &&
          ok.has(tx.hash)
        ) {
          wei += tx.value;
        }
      }
      const index = Number(proposer.index);
      el.set(index, (el.get(index) ?? 0n) + wei / WEI_PER_GWEI);
    }

    for (const log of logs) {
      const row = await logTransaction(execution, log, deps.depositContract, byPubkey);
      if (!row) continue;
      transactions.push({ ...row, blockNumber, blockTimestamp: timestamp, slot });
      const time = new Date(timestamp * 1000);
      if (row.type === "DEPOSIT") observe(row.pubkey, "DEPOSITED", time);
      if (row.type === "FULL_WITHDRAWAL") observe(row.pubkey, "EXIT_REQUESTED", time);
    }
  }

  const epochEnd = new Date(slotTime(last) * 1000);
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
    const history: EpochData["history"] = [];
    for (const o of observed.get(t.pubkey) ?? []) {
      const next = later(status, o.status);
      if (next !== status) {
        for (const s of transitions(status, next))
          history.push({ pubkey: t.pubkey, status: s, time: o.time, epoch });
        status = next;
      }
    }
    validators.push({
      pubkey: t.pubkey,
      validatorIndex: v ? Number(v.index) : null,
      beaconStatus: v?.status ?? null,
      lifecycle: status ?? "CREATED",
      withdrawalCredentials: v?.validator.withdrawal_credentials ?? null,
      feeRecipient: t.feeRecipient ?? feeRecipientOf.get(t.pubkey) ?? null,
      balanceGwei: v ? BigInt(v.balance) : 0n,
    });
    allHistory.push(...history);
    if (!v) continue;
    const index = Number(v.index);
    const end = BigInt(v.balance);
    const start = prevBalance.get(index) ?? 0n;
    const out = withdrawn.get(index) ?? 0n;
    const inflow = applied.get(t.pubkey) ?? 0n;
    if (start === 0n && end === 0n && out === 0n && inflow === 0n) continue;
    rewards.push({
      validatorIndex: index,
      balanceGwei: end,
      clRewardGwei: end - start - inflow + out + (moved.get(index) ?? 0n),
      elRewardGwei: el.get(index) ?? 0n,
    });
  }
  return { epoch, slots, rewards, validators, history: allHistory, transactions };
}

/**
 * Balance moved by EIP-7251 consolidations at this epoch's transition, per validator index: + for the
 * source (it gave it away: not a loss), − for the target (it received it: not a reward). A consolidation
 * pending at the end of the previous epoch and gone at the end of this one was processed in between, and
 * moved min(balance, effective balance) of the source as they stood before (Electra
 * `process_pending_consolidations`; an exited source earns nothing more by then). The counterpart of a
 * tracked validator may be untracked: its previous state is read by index.
 */
async function consolidated(
  beacon: BeaconApi,
  prevSlot: number,
  prev: ApiValidator[],
  pendingBefore: ApiPendingConsolidation[],
  pendingAfter: ApiPendingConsolidation[],
  tracked: Map<number, ApiValidator>,
): Promise<Map<number, bigint>> {
  const key = (c: ApiPendingConsolidation) => `${c.source_index}:${c.target_index}`;
  const still = new Set(pendingAfter.map(key));
  const done = pendingBefore.filter(
    (c) => !still.has(key(c)) && (tracked.has(Number(c.source_index)) || tracked.has(Number(c.target_index))),
  );
  const moved = new Map<number, bigint>();
  if (!done.length) return moved;
  const before = new Map(prev.map((v) => [v.index, v]));
  const unknown = done.map((c) => c.source_index).filter((i) => !before.has(i));
  for (const v of await beacon.validators(prevSlot, unknown)) before.set(v.index, v);
  for (const c of done) {
    const source = before.get(c.source_index);
    if (!source) continue;
    const balance = BigInt(source.balance);
    const effective = BigInt(source.validator.effective_balance);
    const amount = balance < effective ? balance : effective;
    const add = (index: string, x: bigint) => moved.set(Number(index), (moved.get(Number(index)) ?? 0n) + x);
    add(c.source_index, amount);
    add(c.target_index, -amount);
  }
  return moved;
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
): Promise<Omit<TransactionRow, "blockNumber" | "blockTimestamp" | "slot"> | null> {
  const address = log.address.toLowerCase();
  let fields: Pick<
    TransactionRow,
    "pubkey" | "type" | "sourcePubkey" | "targetPubkey" | "amountGwei" | "withdrawalCredentials"
  >;
  if (address === depositContract.toLowerCase() && log.topics[0] === DEPOSIT_TOPIC) {
    const wc = abiBytes(log.data, 1);
    fields = {
      pubkey: abiBytes(log.data, 0),
      type: "DEPOSIT",
      sourcePubkey: null,
      targetPubkey: null,
      amountGwei: le64(abiBytes(log.data, 2)),
      withdrawalCredentials: wc,
    };
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
      ? addressOfCredentials(fields.withdrawalCredentials)
      : tx.from.toLowerCase(),
  };
}
