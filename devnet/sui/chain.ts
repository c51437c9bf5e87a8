import { createHash } from "node:crypto";

/**
 * The staking part of Sui's system state, run the way `sui-system` runs it (staking_pool.move,
 * validator.move, validator_set.move), with u64/u128 floor divisions in bigint:
 * - a stake request adds a pending stake that activates next epoch (`StakedSui.stake_activation_epoch`);
 * - at each epoch change, a pool's reward is split: `commission = reward × rate_bps / 10000` becomes a
 *   pending stake of the validator, the rest is deposited (`sui_balance` and `rewards_pool` grow); then
 *   withdrawals and pending stakes are processed and `exchange_rates[new epoch]` is inserted;
 * - in safe mode the epoch advances but no pool is touched and no rate is inserted; the rewards of the
 *   safe-mode epochs are paid at the next normal epoch change;
 * - a withdrawal pays principal + max(0, value at the current epoch − principal), capped by `rewards_pool`,
 *   and emits `UnstakingRequestEvent`.
 */

export interface Rate {
  suiAmount: bigint;
  poolTokenAmount: bigint;
}

export interface Pool {
  id: string;
  exchangeRatesId: string;
  activationEpoch: number;
  suiBalance: bigint;
  poolTokenBalance: bigint;
  rewardsPool: bigint;
  pendingStake: bigint;
  pendingTotalSuiWithdraw: bigint;
  pendingPoolTokenWithdraw: bigint;
  rates: Map<number, Rate>;
}

export interface Validator {
  address: string;
  name: string;
  commissionBps: bigint;
  pool: Pool;
}

export interface StakedSui {
  id: string;
  owner: string;
  poolId: string;
  activationEpoch: number;
  principal: bigint;
  /** The pool tokens the principal bought, fixed when the stake activates (null before). */
  poolTokens: bigint | null;
}

export interface ChainEvent {
  /** Position in the node's event stream (the GraphQL cursor). */
  index: number;
  txDigest: string;
  /** Index of the event within its transaction. */
  sequenceNumber: number;
  type: string;
  sender: string;
  timestampMs: number;
  json: Record<string, unknown>;
}

export const SYSTEM = `0x${"0".repeat(63)}3`;
export const STAKED_SUI_TYPE = `${SYSTEM}::staking_pool::StakedSui`;
export const UNSTAKE_EVENT_TYPE = `${SYSTEM}::validator::UnstakingRequestEvent`;
export const STAKE_EVENT_TYPE = `${SYSTEM}::validator::StakingRequestEvent`;
const BPS = 10_000n;
const DAY_MS = 86_400_000;

/** A deterministic 32-byte id from a label (object ids, addresses and digests of the simulation). */
export function devnetId(label: string): string {
  return `0x${createHash("sha256").update(label).digest("hex")}`;
}

/*
 * The simulated chain is the reference the rewards area is checked against, so it keeps its own books and
 * shares no code with the area: a stake's pool tokens are fixed when it activates, and its worth at an
 * epoch is read from those tokens and the pool's rate (`worthAt`).
 */

/**
 * One side of a pool's exchange rate into the other, floored as the Move code's u128 divisions are
 * (staking_pool::get_token_amount with from = SUI, to = tokens; get_sui_amount the other way); 1:1 while
 * the pool is empty.
 */
function convert(amount: bigint, from: bigint, to: bigint): bigint {
  return from === 0n || to === 0n ? amount : (amount * to) / from;
}

export class SuiChain {
  epoch = 0;
  /** Start time of every epoch so far. */
  readonly epochStartMs: number[] = [];
  readonly safeModeEpochs = new Set<number>();
  readonly validators: Validator[] = [];
  readonly objects = new Map<string, StakedSui>();
  /** Every stake ever minted, withdrawn ones included (the record `worthAt` reads). */
  private readonly minted = new Map<string, StakedSui>();
  readonly events: ChainEvent[] = [];
  private txCounter = 0;
  private objectCounter = 0;
  /** Rewards of safe-mode epochs, paid at the next normal epoch change. */
  private readonly carried = new Map<string, bigint>();

  constructor(opts: { genesisMs: number; epochMs?: number }) {
    this.epochStartMs.push(opts.genesisMs);
    this.epochMs = opts.epochMs ?? DAY_MS;
  }

  private readonly epochMs: number;

  get now(): number {
    return (this.epochStartMs[this.epoch] ?? 0) + 1000 * (this.txCounter % 3600);
  }

  addValidator(name: string, commissionBps: bigint): Validator {
    const v: Validator = {
      address: devnetId(`validator:${name}`),
      name,
      commissionBps,
      pool: {
        id: devnetId(`pool:${name}`),
        exchangeRatesId: devnetId(`exchange_rates:${name}`),
        activationEpoch: this.epoch,
        suiBalance: 0n,
        poolTokenBalance: 0n,
        rewardsPool: 0n,
        pendingStake: 0n,
        pendingTotalSuiWithdraw: 0n,
        pendingPoolTokenWithdraw: 0n,
        // staking_pool::activate_staking_pool inserts the empty rate at the activation epoch.
        rates: new Map([[this.epoch, { suiAmount: 0n, poolTokenAmount: 0n }]]),
      },
    };
    this.validators.push(v);
    return v;
  }

  validator(address: string): Validator {
    const v = this.validators.find((x) => x.address === address || x.name === address);
    if (!v) throw new Error(`no validator ${address}`);
    return v;
  }

  /** staking_pool::pool_token_exchange_rate_at_epoch: the latest entry at or before `epoch`. */
  rateAt(pool: Pool, epoch: number): Rate {
    for (let e = epoch; e >= pool.activationEpoch; e--) {
      const r = pool.rates.get(e);
      if (r) return r;
    }
    return { suiAmount: 0n, poolTokenAmount: 0n };
  }

  private tx(sender: string): { digest: string; sender: string } {
    this.txCounter++;
    return { digest: devnetId(`tx:${this.txCounter}`), sender };
  }

  private emit(
    tx: { digest: string; sender: string },
    seq: number,
    type: string,
    json: Record<string, unknown>,
  ) {
    this.events.push({
      index: this.events.length,
      txDigest: tx.digest,
      sequenceNumber: seq,
      type,
      sender: tx.sender,
      timestampMs: this.now,
      json,
    });
  }

  /** validator::request_add_stake: a StakedSui owned by `owner`, active from the next epoch. */
  requestAddStake(owner: string, validator: string, amount: bigint): StakedSui {
    if (amount < 1_000_000_000n) throw new Error("a stake is at least 1 SUI");
    const v = this.validator(validator);
    const tx = this.tx(owner);
    const stake = this.mintStake(owner, v, amount);
    this.emit(tx, 0, STAKE_EVENT_TYPE, {
      pool_id: v.pool.id,
      validator_address: v.address,
      staker_address: owner,
      epoch: String(this.epoch),
      amount: String(amount),
    });
    return stake;
  }

  private mintStake(owner: string, v: Validator, amount: bigint): StakedSui {
    v.pool.pendingStake += amount;
    const stake: StakedSui = {
      id: devnetId(`object:${++this.objectCounter}`),
      owner,
      poolId: v.pool.id,
      activationEpoch: this.epoch + 1,
      principal: amount,
      poolTokens: null,
    };
    this.objects.set(stake.id, stake);
    this.minted.set(stake.id, stake);
    return stake;
  }

  /** validator::request_withdraw_stake; returns the reward paid (0 for a stake not yet active). */
  requestWithdrawStake(owner: string, stakeId: string): bigint {
    const stake = this.objects.get(stakeId);
    if (!stake || stake.owner !== owner) throw new Error(`${owner} owns no stake ${stakeId}`);
    const v = this.validators.find((x) => x.pool.id === stake.poolId)!;
    const pool = v.pool;
    this.objects.delete(stakeId);
    const tx = this.tx(owner);
    let reward = 0n;
    if (stake.activationEpoch > this.epoch) {
      // staking_pool::request_withdraw_stake: a stake not active yet leaves the pending stake, no reward.
      pool.pendingStake -= stake.principal;
    } else {
      const total = this.worthAt(stakeId, this.epoch);
      reward = total > stake.principal ? total - stake.principal : 0n;
      if (reward > pool.rewardsPool) reward = pool.rewardsPool;
      pool.rewardsPool -= reward;
      pool.pendingTotalSuiWithdraw += stake.principal + reward;
      pool.pendingPoolTokenWithdraw += stake.poolTokens ?? 0n;
    }
    // validator::request_withdraw_stake emits the event either way (reward 0 for a pending stake).
    this.emit(tx, 0, UNSTAKE_EVENT_TYPE, {
      pool_id: pool.id,
      validator_address: v.address,
      staker_address: owner,
      stake_activation_epoch: String(stake.activationEpoch),
      unstaking_epoch: String(this.epoch),
      principal_amount: String(stake.principal),
      reward_amount: String(reward),
    });
    return reward;
  }

  /**
   * Ends the current epoch. `rewards` gives each validator's reward for the ending epoch (by address or
   * name); `safeMode` ends it without touching the pools (no rate is inserted for the new epoch).
   */
  advanceEpoch(opts: { rewards?: Map<string, bigint>; safeMode?: boolean } = {}): void {
    const ending = this.epoch;
    for (const [who, amount] of opts.rewards ?? []) {
      const v = this.validator(who);
      this.carried.set(v.address, (this.carried.get(v.address) ?? 0n) + amount);
    }
    this.epoch = ending + 1;
    this.epochStartMs.push((this.epochStartMs[ending] ?? 0) + this.epochMs);
    if (opts.safeMode) {
      this.safeModeEpochs.add(this.epoch);
      this.fixPoolTokens();
      return;
    }
    for (const v of this.validators) {
      const reward = this.carried.get(v.address) ?? 0n;
      this.carried.delete(v.address);
      const pool = v.pool;
      // validator_set::distribute_reward: commission is restaked for the validator, the rest deposited.
      const commission = (reward * v.commissionBps) / BPS;
      if (commission > 0n) this.mintStake(v.address, v, commission).activationEpoch = ending + 1;
      pool.suiBalance += reward - commission;
      pool.rewardsPool += reward - commission;
      // staking_pool::process_pending_stakes_and_withdraws
      pool.suiBalance -= pool.pendingTotalSuiWithdraw;
      pool.poolTokenBalance -= pool.pendingPoolTokenWithdraw;
      pool.pendingTotalSuiWithdraw = 0n;
      pool.pendingPoolTokenWithdraw = 0n;
      const latest = { suiAmount: pool.suiBalance, poolTokenAmount: pool.poolTokenBalance };
      pool.suiBalance += pool.pendingStake;
      pool.poolTokenBalance = convert(pool.suiBalance, latest.suiAmount, latest.poolTokenAmount);
      pool.pendingStake = 0n;
      pool.rates.set(this.epoch, { suiAmount: pool.suiBalance, poolTokenAmount: pool.poolTokenBalance });
    }
    this.fixPoolTokens();
  }

  /** Stakes activating in the new epoch buy pool tokens at its rate (the latest at or before it). */
  private fixPoolTokens(): void {
    for (const stake of this.objects.values()) {
      if (stake.activationEpoch !== this.epoch || stake.poolTokens !== null) continue;
      const pool = this.validators.find((v) => v.pool.id === stake.poolId)!.pool;
      const rate = this.rateAt(pool, this.epoch);
      stake.poolTokens = convert(stake.principal, rate.suiAmount, rate.poolTokenAmount);
    }
  }

  /** What a stake's pool tokens were worth in SUI at the start of `epoch`; its principal before it activated. */
  worthAt(stakeId: string, epoch: number): bigint {
    const stake = this.minted.get(stakeId);
    if (!stake) throw new Error(`no stake ${stakeId}`);
    if (stake.poolTokens === null || epoch <= stake.activationEpoch) return stake.principal;
    const pool = this.validators.find((v) => v.pool.id === stake.poolId)!.pool;
    const rate = this.rateAt(pool, epoch);
    return convert(stake.poolTokens, rate.poolTokenAmount, rate.suiAmount);
  }

  /** A pool's reward for one epoch at an APR in basis points, as the stake subsidy would roughly pay. */
  aprReward(validator: string, aprBps: bigint): bigint {
    return (this.validator(validator).pool.suiBalance * aprBps) / (BPS * 365n);
  }
}
