import { keccak256, toUtf8Bytes } from "ethers";

/**
 * Ledger of the simulated Hyperliquid node: spot and staking balances, delegations with their 1-day lock,
 * the 7-day staking → spot withdrawal queue and the delegator history, all in integer wei (10^-8 HYPE) on a
 * controllable clock. Errors are returned as Hyperliquid's own message strings.
 */

export const DAY_MS = 86_400_000;
export const LOCK_MS = DAY_MS;
export const WITHDRAWAL_QUEUE_MS = 7 * DAY_MS;
/**
 * Delegation reward rate in basis points a year (the 0.0215 `predictedApr` the validator summaries show).
 * Hyperliquid accrues rewards each minute and distributes them once a day, compounded into the delegation;
 * the devnet pays a whole UTC day at its start, on the delegations held when the day closed.
 */
export const REWARD_APR_BPS = 215n;
const ZERO_HASH = `0x${"0".repeat(64)}`;

export type Delta =
  | { delegate: { validator: string; amount: string; isUndelegate: boolean } }
  | { cDeposit: { amount: string } }
  | { withdrawal: { amount: string; phase: "initiated" | "finalized" } };

export interface HistoryEntry {
  time: number;
  hash: string;
  delta: Delta;
}

/** One daily distribution, the way `delegatorRewards` lists it. */
export interface RewardEntry {
  time: number;
  source: "delegation" | "commission";
  totalAmount: string;
}

/** One delegation's reward for a day: floor(amount × APR / 365), in wei. */
export const dailyReward = (wei: bigint) => (wei * REWARD_APR_BPS) / (10_000n * 365n);

interface Account {
  spot: bigint;
  staking: bigint;
  delegations: Map<string, { amount: bigint; lockedUntil: number }>;
  pending: { amount: bigint; finalizesAt: number }[];
  history: HistoryEntry[];
  nonces: number[];
  rewards: RewardEntry[];
  /** The UTC day (ms / DAY_MS) whose start was the last distribution already paid. */
  paidDay: number;
}

/** Decimal HYPE string the way the info API writes it: "89968.0", "0.00674734". */
export function formatHype(wei: bigint): string {
  const int = wei / 100_000_000n;
  const frac = (wei % 100_000_000n).toString().padStart(8, "0").replace(/0+$/, "");
  return `${int}.${frac || "0"}`;
}

export function createLedger(opts: { now: () => number; validators: readonly string[] }) {
  const accounts = new Map<string, Account>();
  const stakes = new Map<string, bigint>(opts.validators.map((v) => [v, 0n]));

  const get = (user: string) => accounts.get(user.toLowerCase());
  const ensure = (user: string): Account => {
    const key = user.toLowerCase();
    let a = accounts.get(key);
    if (!a) {
      a = {
        spot: 0n,
        staking: 0n,
        delegations: new Map(),
        pending: [],
        history: [],
        nonces: [],
        rewards: [],
        paidDay: Math.floor(opts.now() / DAY_MS),
      };
      accounts.set(key, a);
    }
    return a;
  };

  /** Pays every day boundary passed since the last read, each on the delegations as compounded so far. */
  function accrue(a: Account) {
    const today = Math.floor(opts.now() / DAY_MS);
    for (let day = a.paidDay + 1; day <= today; day++) {
      let total = 0n;
      for (const [validator, d] of a.delegations) {
        const reward = dailyReward(d.amount);
        d.amount += reward;
        stakes.set(validator, (stakes.get(validator) ?? 0n) + reward);
        total += reward;
      }
      if (total > 0n) {
        a.rewards.unshift({ time: day * DAY_MS, source: "delegation", totalAmount: formatHype(total) });
      }
    }
    a.paidDay = Math.max(a.paidDay, today);
  }

  /** Matures the withdrawal queue and pays rewards lazily: whatever has waited 7 days lands in spot. */
  function settle(a: Account) {
    accrue(a);
    const now = opts.now();
    const due = a.pending.filter((p) => p.finalizesAt <= now);
    if (!due.length) return;
    a.pending = a.pending.filter((p) => p.finalizesAt > now);
    for (const p of due) {
      a.spot += p.amount;
      a.history.unshift({
        time: p.finalizesAt,
        hash: ZERO_HASH,
        delta: { withdrawal: { amount: formatHype(p.amount), phase: "finalized" } },
      });
    }
  }

  /** Hyperliquid keeps the 100 highest nonces; a new one must beat the smallest and never repeat. */
  function useNonce(a: Account, nonce: number): string | undefined {
    if (nonce > opts.now() + DAY_MS) return "Invalid nonce: too far in the future";
    if (a.nonces.includes(nonce)) return "Invalid nonce: duplicate nonce";
    if (a.nonces.length >= 100 && nonce < (a.nonces[0] ?? 0)) return "Invalid nonce: too old";
    a.nonces.push(nonce);
    a.nonces.sort((x, y) => x - y);
    if (a.nonces.length > 100) a.nonces.shift();
    return undefined;
  }

  function record(a: Account, body: unknown, delta: Delta): string {
    const hash = keccak256(toUtf8Bytes(JSON.stringify(body)));
    a.history.unshift({ time: opts.now(), hash, delta });
    return hash;
  }

  return {
    exists: (user: string) => accounts.has(user.toLowerCase()),
    fund(user: string, wei: { spot?: bigint; staking?: bigint }) {
      const a = ensure(user);
      a.spot += wei.spot ?? 0n;
      a.staking += wei.staking ?? 0n;
    },
    /** Applies one verified action; returns an error message or undefined on success. */
    apply(
      user: string,
      action: { type: string; wei: number; nonce: number; validator?: string; isUndelegate?: boolean },
      body: unknown,
    ): string | undefined {
      const a = get(user);
      if (!a) return `User or API Wallet ${user} does not exist.`;
      settle(a);
      const wei = BigInt(action.wei);
      if (wei < 1n) return "Amount must be positive";
      const nonceError = useNonce(a, action.nonce);
      if (nonceError) return nonceError;
      const amount = formatHype(wei);
      switch (action.type) {
        case "cDeposit":
          if (a.spot < wei) return "Insufficient balance for transfer to staking";
          a.spot -= wei;
          a.staking += wei;
          record(a, body, { cDeposit: { amount } });
          return undefined;
        case "cWithdraw":
          if (a.staking < wei) return "Insufficient staking balance for withdrawal";
          a.staking -= wei;
          a.pending.push({ amount: wei, finalizesAt: opts.now() + WITHDRAWAL_QUEUE_MS });
          record(a, body, { withdrawal: { amount, phase: "initiated" } });
          return undefined;
        case "tokenDelegate": {
          const validator = (action.validator ?? "").toLowerCase();
          if (!stakes.has(validator)) return `Unknown validator ${validator}`;
          const d = a.delegations.get(validator);
          if (action.isUndelegate) {
            if (!d || d.amount < wei) return "Insufficient delegated balance for undelegation";
            if (d.lockedUntil > opts.now()) {
              return `Cannot undelegate: delegation is locked until ${d.lockedUntil}`;
            }
            d.amount -= wei;
            if (d.amount === 0n) a.delegations.delete(validator);
            a.staking += wei;
            stakes.set(validator, (stakes.get(validator) ?? 0n) - wei);
          } else {
            if (a.staking < wei) return "Insufficient balance for token delegation";
            a.staking -= wei;
            a.delegations.set(validator, {
              amount: (d?.amount ?? 0n) + wei,
              lockedUntil: opts.now() + LOCK_MS,
            });
            stakes.set(validator, (stakes.get(validator) ?? 0n) + wei);
          }
          record(a, body, { delegate: { validator, amount, isUndelegate: action.isUndelegate === true } });
          return undefined;
        }
      }
      return "Unknown action";
    },
    spotState(user: string) {
      const a = get(user);
      if (a) settle(a);
      const hype = formatHype(a?.spot ?? 0n);
      return {
        balances: [
          { coin: "USDC", token: 0, total: "0.0", hold: "0.0", entryNtl: "0.0" },
          { coin: "HYPE", token: 150, total: hype, hold: "0.0", entryNtl: "0.0" },
        ],
      };
    },
    summary(user: string) {
      const a = get(user);
      if (a) settle(a);
      const delegated = [...(a?.delegations.values() ?? [])].reduce((s, d) => s + d.amount, 0n);
      const pending = (a?.pending ?? []).reduce((s, p) => s + p.amount, 0n);
      return {
        delegated: formatHype(delegated),
        undelegated: formatHype(a?.staking ?? 0n),
        totalPendingWithdrawal: formatHype(pending),
        nPendingWithdrawals: a?.pending.length ?? 0,
      };
    },
    delegations(user: string) {
      const a = get(user);
      if (a) settle(a);
      return [...(a?.delegations.entries() ?? [])].map(([validator, d]) => ({
        validator,
        amount: formatHype(d.amount),
        lockedUntilTimestamp: d.lockedUntil,
      }));
    },
    history(user: string) {
      const a = get(user);
      if (a) settle(a);
      return a?.history ?? [];
    },
    /** `delegatorRewards`: newest first, amounts in HYPE. */
    rewards(user: string) {
      const a = get(user);
      if (a) settle(a);
      return a?.rewards ?? [];
    },
    validatorSummaries() {
      for (const a of accounts.values()) settle(a);
      return [...stakes.entries()].map(([validator, stake], i) => ({
        validator,
        signer: validator,
        name: `Devnet validator ${i + 1}`,
        description: "Simulated validator",
        nRecentBlocks: 1,
        stake: Number(stake),
        isJailed: false,
        unjailableAfter: null,
        isActive: true,
        commission: "0.04",
        stats: [
          ["day", { uptimeFraction: "1.0", predictedApr: "0.0215", nSamples: 1440 }],
          ["week", { uptimeFraction: "1.0", predictedApr: "0.0215", nSamples: 10080 }],
          ["month", { uptimeFraction: "1.0", predictedApr: "0.0215", nSamples: 43200 }],
        ],
      }));
    },
  };
}

export type Ledger = ReturnType<typeof createLedger>;
