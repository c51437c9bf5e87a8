/**
 * Per-epoch rewards of Sui stakes from their pool's exchange rates, with the chain's own floor divisions
 * (docs/chains/polygon-sui.md §2.2–2.3; `staking_pool.move` get_token_amount / get_sui_amount, u128 intermediates):
 *   tok  = floor(P × T(a) / S(a))          (1:1 when the rate is empty)
 *   V(e) = floor(tok × S(e) / T(e))        value at the start of epoch e
 *   C(e) = max(0, V(e) − P)                cumulative reward at the start of e (C(a) = 0)
 *   r(e) = C(e+1) − C(e)                   reward earned during e
 * where S/T is the pool's latest `exchange_rates` entry at or before e (safe-mode epochs have none).
 * A withdrawal in epoch u pays C(u) (UnstakingRequestEvent.reward_amount), so a stake earns in a ≤ e < u.
 * Everything is bigint; nothing here does I/O.
 */

export interface Rate {
  suiAmount: bigint;
  poolTokenAmount: bigint;
}

export interface StakePosition {
  poolId: string;
  principal: bigint;
  activationEpoch: number;
  /** Epoch of the withdrawal, or null while the stake is live. */
  unstakeEpoch: number | null;
}

export interface RewardRow {
  epoch: number;
  /** Sum of the principals active during the epoch. */
  principal: bigint;
  /** Earned during the epoch, credited at its end. */
  epochReward: bigint;
  /** Earned by every stake through the end of the epoch (closed stakes included). */
  totalRewards: bigint;
}

const EMPTY: Rate = { suiAmount: 0n, poolTokenAmount: 0n };

export function tokenAmount(rate: Rate, sui: bigint): bigint {
  if (rate.suiAmount === 0n || rate.poolTokenAmount === 0n) return sui;
  return (sui * rate.poolTokenAmount) / rate.suiAmount;
}

export function suiAmount(rate: Rate, tokens: bigint): bigint {
  if (rate.suiAmount === 0n || rate.poolTokenAmount === 0n) return tokens;
  return (tokens * rate.suiAmount) / rate.poolTokenAmount;
}

/**
 * `pool_token_exchange_rate_at_epoch` over the entries read so far: the latest entry at or before an
 * epoch, empty before the first one. Entries are forward-filled once so each lookup is an array read.
 */
export class RateTable {
  private readonly base: number;
  private readonly filled: Rate[];

  constructor(entries: Iterable<{ epoch: number; rate: Rate }>) {
    const sorted = [...entries].sort((a, b) => a.epoch - b.epoch);
    this.base = sorted[0]?.epoch ?? 0;
    const last = sorted.at(-1)?.epoch ?? -1;
    this.filled = new Array<Rate>(Math.max(0, last - this.base + 1));
    let i = 0;
    let current = EMPTY;
    for (let e = this.base; e <= last; e++) {
      if (sorted[i]?.epoch === e) current = sorted[i++]!.rate;
      this.filled[e - this.base] = current;
    }
  }

  at(epoch: number): Rate {
    if (epoch < this.base) return EMPTY;
    return this.filled[Math.min(epoch, this.base + this.filled.length - 1) - this.base] ?? EMPTY;
  }
}

/** C(e) of one stake, given its pool tokens (tok). */
function cumulative(stake: StakePosition, tokens: bigint, table: RateTable, epoch: number): bigint {
  if (epoch <= stake.activationEpoch) return 0n;
  const value = suiAmount(table.at(epoch), tokens);
  return value > stake.principal ? value - stake.principal : 0n;
}

/** Whether the stake earns during `epoch`. */
export function isActive(stake: StakePosition, epoch: number): boolean {
  return stake.activationEpoch <= epoch && (stake.unstakeEpoch === null || epoch < stake.unstakeEpoch);
}

/**
 * One row per given epoch, in ascending order (each must be finished: its successor's rate is known).
 * `tables` holds the rate table of every stake's pool.
 *
 * Only `C(e+1)` is computed per stake and row: `totalRewards(e) = Σ C_i(min(e+1, u_i))` over the stakes
 * activated by then, and `epochReward(e)` is the difference with the same sum one epoch earlier (a stake
 * not active in e adds the same amount to both). That sum is the previous row's total when the rows are
 * consecutive. Principals are summed from the stakes' start and end epochs.
 */
export function rewardRows(
  stakes: readonly StakePosition[],
  tables: ReadonlyMap<string, RateTable>,
  epochs: readonly number[],
): RewardRow[] {
  if (!epochs.length) return [];
  const totals = epochs.map(() => 0n);
  // Σ C_i(min(e, u_i)) for the first row's epoch e, and for any row that does not follow its predecessor.
  const before = epochs.map((e, j) => (j === 0 || epochs[j - 1] !== e - 1 ? 0n : undefined));
  const changes = new Map<number, bigint>();
  for (const stake of stakes) {
    const table = tables.get(stake.poolId);
    if (!table) throw new Error(`no exchange rates for pool ${stake.poolId}`);
    const tokens = tokenAmount(table.at(stake.activationEpoch), stake.principal);
    const end = stake.unstakeEpoch ?? Number.POSITIVE_INFINITY;
    const at = (e: number) => cumulative(stake, tokens, table, Math.min(e, end));
    // Withdrawn before it activated (the chain's UnstakingRequestEvent, reward 0): never staked at all.
    if (stake.unstakeEpoch !== null && stake.unstakeEpoch <= stake.activationEpoch) continue;
    changes.set(stake.activationEpoch, (changes.get(stake.activationEpoch) ?? 0n) + stake.principal);
    if (stake.unstakeEpoch !== null) {
      changes.set(stake.unstakeEpoch, (changes.get(stake.unstakeEpoch) ?? 0n) - stake.principal);
    }
    for (let j = 0; j < epochs.length; j++) {
      const e = epochs[j]!;
      if (e < stake.activationEpoch) continue;
      totals[j]! += at(e + 1);
      if (before[j] !== undefined && e > stake.activationEpoch) before[j]! += at(e);
    }
  }
  let principal = 0n;
  const points = [...changes].sort((a, b) => a[0] - b[0]);
  let k = 0;
  return epochs.map((epoch, j) => {
    while (k < points.length && points[k]![0] <= epoch) principal += points[k++]![1];
    const start = before[j] ?? totals[j - 1]!;
    return { epoch, principal, epochReward: totals[j]! - start, totalRewards: totals[j]! };
  });
}
