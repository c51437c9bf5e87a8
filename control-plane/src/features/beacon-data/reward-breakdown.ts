import { mapConcurrent, NodeAnswerRefused } from "../../http/upstream.ts";
import type { ClBreakdown } from "./cl-breakdown.ts";
import type { BeaconApi } from "./client.ts";
import type { EpochData, EpochInput } from "./epoch-rewards.ts";

type Rewards = BeaconApi["verified"]["rewards"];
/** What the node's rewards endpoints say a validator earned in the epoch. */
type NodeParts = Omit<ClBreakdown, "slashing" | "unexplained">;
const NONE: NodeParts = {
  attSource: 0n,
  attTarget: 0n,
  attHead: 0n,
  attInactivity: 0n,
  syncCommittee: 0n,
  proposer: 0n,
};

/**
 * The initial slashing penalty's quotient (consensus-specs `slash_validator`): MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA
 * from Electra, _BELLATRIX before (the same in the mainnet and minimal presets). No rewards endpoint reports it.
 */
const slashingQuotient = (electra: boolean) => (electra ? 4096n : 32n);

/** A node answer naming a validator twice, or one not asked about, is refused: its amounts would be misfiled. */
function checkIndices(indices: string[], asked: Set<number>, what: string): void {
  const seen = new Set<string>();
  for (const i of indices) {
    if (!asked.has(Number(i)) || seen.has(i))
      throw new NodeAnswerRefused(`Beacon node answered ${what} for validator ${i}, not asked or twice`);
    seen.add(i);
  }
}

/**
 * The attestation rewards that epoch `epoch`'s first slot pays (those of epoch − 2, processed at the end of
 * epoch − 1; none before epoch 2, as the spec pays none for the genesis epoch) for the validators `indices`:
 * undefined when there are none to ask, null when the node does not serve them.
 */
export async function attestationRewards(rewards: Rewards, epoch: number, indices: number[]) {
  const attEpoch = epoch - 2;
  if (attEpoch < 0 || !indices.length) return undefined;
  const att = await rewards.attestations(attEpoch, indices);
  if (att)
    checkIndices(
      att.total_rewards.map((r) => r.validator_index),
      new Set(indices),
      `attestation rewards of epoch ${attEpoch}`,
    );
  return att;
}

/**
 * The tracked validators' CL reward parts of epoch `input.epoch` from the node's standard rewards endpoints:
 * the attestation rewards (`attestationRewards`, asked for every validator in `indices` or more), and the
 * sync-committee and proposer rewards of the epoch's blocks. `unserved` names the first answer the node did
 * not serve (a node without the endpoints, a pruned state): the epoch then has no breakdown at all, never a
 * partial one.
 */
export async function fetchNodeParts(
  rewards: Rewards,
  input: EpochInput,
  indices: number[],
  att: Awaited<ReturnType<typeof attestationRewards>>,
): Promise<{ parts: Map<number, NodeParts> } | { unserved: string }> {
  const parts = new Map<number, NodeParts>();
  if (!indices.length) return { parts };
  const asked = new Set(indices);
  const add = (index: number, part: keyof NodeParts, amount: bigint) => {
    const p = parts.get(index) ?? { ...NONE };
    p[part] += amount;
    parts.set(index, p);
  };
  const attEpoch = input.epoch - 2;
  if (attEpoch >= 0) {
    if (!att) return { unserved: `attestation rewards of epoch ${attEpoch}` };
    for (const r of att.total_rewards) {
      const i = Number(r.validator_index);
      add(i, "attSource", r.source);
      add(i, "attTarget", r.target);
      add(i, "attHead", r.head);
      add(i, "attInactivity", r.inactivity);
    }
  }
  const blocks = input.slots.flatMap((s) =>
    s.block && s.root !== null ? [{ slot: s.slot, block: s.block }] : [],
  );
  const answers = await mapConcurrent(blocks, 8, async ({ slot, block }) => {
    const proposer = Number(block.message.proposer_index);
    const [sync, proposed] = await Promise.all([
      rewards.syncCommittee(slot, indices),
      asked.has(proposer) ? rewards.block(slot) : undefined,
    ]);
    if (!sync) return `sync committee rewards of slot ${slot}`;
    if (proposed === null) return `block rewards of slot ${slot}`;
    checkIndices(
      sync.map((s) => s.validator_index),
      asked,
      `sync committee rewards of slot ${slot}`,
    );
    for (const s of sync) add(Number(s.validator_index), "syncCommittee", s.reward);
    if (proposed) {
      if (Number(proposed.proposer_index) !== proposer)
        throw new NodeAnswerRefused(
          `Beacon node answered block rewards of slot ${slot} for proposer ${proposed.proposer_index}, the block's is ${proposer}`,
        );
      add(proposer, "proposer", proposed.total);
    }
    return null;
  });
  const unserved = answers.find((a) => a !== null);
  return unserved ? { unserved } : { parts };
}

/**
 * `data` with each reward row's breakdown: the node's parts, the initial slashing penalty of a validator
 * slashed in the epoch (unslashed at the previous epoch's end, slashed at this one's: no epoch processing
 * in between changed its effective balance), and what the balance-derived CL reward has beyond their sum
 * as `unexplained`. The CL reward itself is never changed. Without the node's parts every breakdown is null.
 */
export function withBreakdown(
  data: EpochData,
  input: EpochInput,
  node: Awaited<ReturnType<typeof fetchNodeParts>>,
): EpochData {
  if ("unserved" in node) return { ...data, rewards: data.rewards.map((r) => withPart(r, null)) };
  const before = new Map(input.validators.before.map((v) => [Number(v.index), v]));
  const after = new Map(input.validators.after.map((v) => [Number(v.index), v]));
  const quotient = slashingQuotient(input.epoch >= input.spec.electraForkEpoch);
  const rewards = data.rewards.map((r) => {
    const p = node.parts.get(r.validatorIndex) ?? NONE;
    const now = after.get(r.validatorIndex)?.validator;
    const slashedNow = now?.slashed === true && before.get(r.validatorIndex)?.validator.slashed !== true;
    const slashing = slashedNow && now ? -(BigInt(now.effective_balance) / quotient) : 0n;
    const sum =
      p.attSource + p.attTarget + p.attHead + p.attInactivity + p.syncCommittee + p.proposer + slashing;
    return withPart(r, {
      attSource: p.attSource,
      attTarget: p.attTarget,
      attHead: p.attHead,
      attInactivity: p.attInactivity,
      syncCommittee: p.syncCommittee,
      proposer: p.proposer,
      slashing,
      unexplained: r.clRewardGwei - sum,
    });
  });
  return { ...data, rewards };
}

/**
 * A reward row with its breakdown, its fields named one by one: on Node 20 an object spread followed by a
 * new property takes V8's slow path, 55–77 ms for the 10,000 rows of an epoch against 3–5 ms named
 * (docs/benchmarks.md, "object spread").
 */
function withPart(
  r: EpochData["rewards"][number],
  breakdown: ClBreakdown | null,
): EpochData["rewards"][number] {
  return {
    validatorIndex: r.validatorIndex,
    balanceGwei: r.balanceGwei,
    clRewardGwei: r.clRewardGwei,
    elRewardGwei: r.elRewardGwei,
    mevRewardGwei: r.mevRewardGwei,
    priorityFeeGwei: r.priorityFeeGwei,
    breakdown,
  };
}
