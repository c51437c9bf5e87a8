import { randomBytes } from "node:crypto";
import { AppError } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import { balance } from "./balance.ts";
import {
  type BuiltTransaction,
  buildDeactivateTx,
  buildStakeTx,
  buildWithdrawTx,
  deriveStakeAccount,
  STAKE_ACCOUNT_SPACE,
  stakeSeed,
} from "./builder.ts";
import {
  assertPubkey,
  assertVoteAccount,
  currentEpoch,
  getAccount,
  type LoadedStake,
  loadNonce,
  loadStake,
} from "./chain-reads.ts";
import { SolanaAnswers, type SolanaRpc } from "./client.ts";
import { history } from "./history.ts";
import type { SolanaRewardsRepo } from "./repo.ts";
import { rewards } from "./rewards.ts";
import type { BalanceRequest, HistoryQuery, RewardsQuery } from "./schemas.ts";
import { stakeStatus } from "./stake-state.ts";

const CHAIN = "solana";

export interface StakeInput {
  validatorPubKey: string;
  walletPubKey: string;
  amount: bigint;
  nonceAccountPubKey?: string | undefined;
}
export interface StakeAccountInput {
  validatorPubKey: string;
  walletPubKey: string;
  stakeAccountPubKey: string;
  nonceAccountPubKey?: string | undefined;
}

/**
 * Builds unsigned stake, deactivate and withdraw transactions after checking the chain state they need,
 * and reads balances, rewards and history; every address is checked against the organisation's scope.
 */
export function createSolanaStakeService(deps: {
  rpc: SolanaRpc;
  repo: SolanaRewardsRepo;
  /** The chain check before the stored rewards are read or filled (503 CHAIN_MISMATCH on another chain). */
  assertServing: () => Promise<unknown>;
  mevApiUrl: string;
}) {
  const { rpc } = deps;
  const inScopeOf = (auth: StakingAuth) => (address: string) => assertInScope(auth, CHAIN, address);
  const assertParties = (auth: StakingAuth, input: { walletPubKey: string; validatorPubKey: string }) => {
    assertInScope(auth, CHAIN, input.walletPubKey);
    assertInScope(auth, CHAIN, input.validatorPubKey, "validator");
  };

  async function lifetime(wallet: string, nonceAccount: string | undefined) {
    const latest = await rpc.call(
      "getLatestBlockhash",
      [{ commitment: "confirmed" }],
      SolanaAnswers.latestBlockhash,
    );
    if (!nonceAccount) return { blockhash: latest.value.blockhash, latest: latest.value };
    assertPubkey("nonceAccountPubKey", nonceAccount, false);
    const nonceValue = await loadNonce(rpc, nonceAccount, wallet);
    return { blockhash: nonceValue, nonce: { nonceAccount, nonceValue }, latest: latest.value };
  }

  async function envelope(built: BuiltTransaction, life: Awaited<ReturnType<typeof lifetime>>) {
    const fee = await rpc.call(
      "getFeeForMessage",
      [Buffer.from(built.message).toString("base64"), { commitment: "confirmed" }],
      SolanaAnswers.fee,
    );
    return {
      unsignedTransactionBase64: built.base64,
      blockhash: life.blockhash,
      // A durable-nonce transaction does not expire with the blockhash.
      lastValidBlockHeight: life.nonce ? null : life.latest.lastValidBlockHeight,
      fee: fee.value ?? 5000,
      ...(life.nonce ? { nonceAccountPubkey: life.nonce.nonceAccount } : {}),
    };
  }

  function assertOwned(input: StakeAccountInput, stake: LoadedStake, authority: "staker" | "withdrawer") {
    if (stake.state[authority] !== input.walletPubKey) {
      throw new AppError(
        authority === "staker" ? "NOT_STAKE_AUTHORITY" : "NOT_WITHDRAW_AUTHORITY",
        `The wallet is not the ${authority === "staker" ? "stake" : "withdraw"} authority of ${stake.pubkey}`,
      );
    }
    const voter = stake.state.delegation?.voter;
    if (voter && voter !== input.validatorPubKey) {
      throw new AppError(
        "VALIDATOR_MISMATCH",
        `Stake account is delegated to ${voter}, not the given validator`,
        {
          details: [{ field: "validatorPubKey", message: `Stake account is delegated to ${voter}` }],
        },
      );
    }
  }

  function keys(input: { validatorPubKey: string; walletPubKey: string; stakeAccountPubKey?: string }) {
    assertPubkey("walletPubKey", input.walletPubKey, true);
    assertPubkey("validatorPubKey", input.validatorPubKey, true);
    if (input.stakeAccountPubKey !== undefined)
      assertPubkey("stakeAccountPubKey", input.stakeAccountPubKey, false);
  }

  return {
    balance: (input: BalanceRequest, auth: StakingAuth) => balance(rpc, input, inScopeOf(auth)),
    rewards: async (q: RewardsQuery, auth: StakingAuth) => {
      await deps.assertServing();
      return rewards(deps, q, inScopeOf(auth));
    },
    history: async (q: HistoryQuery, auth: StakingAuth) => {
      await deps.assertServing();
      return history(deps, q, inScopeOf(auth));
    },

    async stake(input: StakeInput, auth: StakingAuth) {
      assertParties(auth, input);
      keys(input);
      const wallet = input.walletPubKey;
      const [rent, min, balance] = await Promise.all([
        rpc.call("getMinimumBalanceForRentExemption", [Number(STAKE_ACCOUNT_SPACE)], SolanaAnswers.lamports),
        rpc.call("getStakeMinimumDelegation", [{ commitment: "confirmed" }], SolanaAnswers.balance),
        rpc.call("getBalance", [wallet, { commitment: "confirmed" }], SolanaAnswers.balance),
        assertVoteAccount(rpc, input.validatorPubKey),
      ]);
      if (input.amount < BigInt(min.value)) {
        throw new AppError("AMOUNT_BELOW_MINIMUM", `amount must be at least ${min.value} lamports`, {
          details: [{ field: "amount", message: `Minimum delegation is ${min.value} lamports` }],
        });
      }
      const rentLamports = BigInt(rent);
      // A random seed each time; retry on the (astronomically unlikely) case that the address is taken.
      let seed = stakeSeed(randomBytes(12));
      for (let i = 0; (await getAccount(rpc, deriveStakeAccount(wallet, seed))) !== null; i++) {
        if (i >= 2) throw new AppError("STAKE_ADDRESS_IN_USE", "Could not find an unused stake address");
        seed = stakeSeed(randomBytes(12));
      }
      const life = await lifetime(wallet, input.nonceAccountPubKey);
      const built = buildStakeTx({
        wallet,
        vote: input.validatorPubKey,
        seed,
        stakeLamports: input.amount,
        rentLamports,
        ...life,
      });
      const env = await envelope(built, life);
      const total = input.amount + rentLamports;
      if (BigInt(balance.value) < total + BigInt(env.fee)) {
        throw new AppError(
          "INSUFFICIENT_FUNDS",
          `Wallet holds ${balance.value} lamports; ${total} plus the fee is needed`,
        );
      }
      return {
        validatorPubkey: input.validatorPubKey,
        walletPubkey: wallet,
        stakeAccountPubkey: built.stakeAccount,
        stakeAmount: Number(input.amount),
        rentExemptAmount: Number(rentLamports),
        rentAmount: Number(rentLamports),
        totalAmount: Number(total),
        seed,
        ...env,
      };
    },

    async deactivate(input: StakeAccountInput, auth: StakingAuth) {
      assertParties(auth, input);
      keys(input);
      const [stake, epoch] = await Promise.all([loadStake(rpc, input.stakeAccountPubKey), currentEpoch(rpc)]);
      assertOwned(input, stake, "staker");
      const d = stake.state.delegation;
      if (!d) throw new AppError("STAKE_ACCOUNT_NOT_DELEGATED", "Stake account is not delegated");
      if (d.deactivationEpoch !== null) {
        throw new AppError(
          "STAKE_ACCOUNT_ALREADY_DEACTIVATED",
          `Stake account was deactivated in epoch ${d.deactivationEpoch} (now ${epoch})`,
        );
      }
      const life = await lifetime(input.walletPubKey, input.nonceAccountPubKey);
      const built = buildDeactivateTx({ wallet: input.walletPubKey, stakeAccount: stake.pubkey, ...life });
      return {
        validatorPubkey: input.validatorPubKey,
        walletPubkey: input.walletPubKey,
        stakeAccountPubkey: stake.pubkey,
        ...(await envelope(built, life)),
      };
    },

    async withdraw(input: StakeAccountInput & { amount: bigint }, auth: StakingAuth) {
      assertParties(auth, input);
      keys(input);
      const [stake, epoch, rent] = await Promise.all([
        loadStake(rpc, input.stakeAccountPubKey),
        currentEpoch(rpc),
        rpc.call("getMinimumBalanceForRentExemption", [Number(STAKE_ACCOUNT_SPACE)], SolanaAnswers.lamports),
      ]);
      assertOwned(input, stake, "withdrawer");
      const status = stakeStatus(stake.state, epoch);
      if (status !== "inactive") {
        throw new AppError(
          "STAKE_ACCOUNT_STILL_ACTIVE",
          `Stake account is ${status}; deactivate it and wait for the epoch to end`,
        );
      }
      if (input.amount > stake.lamports) {
        throw new AppError(
          "WITHDRAW_EXCEEDS_BALANCE",
          `amount exceeds the balance of ${stake.lamports} lamports`,
          {
            details: [{ field: "amount", message: `At most ${stake.lamports}` }],
          },
        );
      }
      const rest = stake.lamports - input.amount;
      if (rest > 0n && rest < BigInt(rent)) {
        throw new AppError(
          "WITHDRAW_LEAVES_DUST",
          `Withdrawal would leave ${rest} lamports, below rent exemption (${rent}); withdraw all ${stake.lamports} or leave at least ${rent}`,
          {
            details: [{ field: "amount", message: `Leave 0 or at least ${rent} lamports` }],
          },
        );
      }
      const life = await lifetime(input.walletPubKey, input.nonceAccountPubKey);
      const built = buildWithdrawTx({
        wallet: input.walletPubKey,
        stakeAccount: stake.pubkey,
        lamports: input.amount,
        ...life,
      });
      return {
        validatorPubkey: input.validatorPubKey,
        walletPubkey: input.walletPubKey,
        stakeAccountPubkey: stake.pubkey,
        amount: Number(input.amount),
        ...(await envelope(built, life)),
      };
    },
  };
}

export type SolanaStakeService = ReturnType<typeof createSolanaStakeService>;
