import { fundedLamports } from "../../chains/solana.ts";
import { AppError } from "../../errors.ts";
import { mapConcurrent } from "../../http/upstream.ts";
import { IDS } from "./builder.ts";
import { assertPubkey, currentEpoch, type LoadedStake, toStake } from "./chain-reads.ts";
import { SolanaAnswers, type SolanaRpc } from "./client.ts";
import { lamportsToSol } from "./codec.ts";
import { decodeOrSkip } from "./message.ts";
import { stakeStatus } from "./stake-state.ts";

interface SigInfo {
  signature: string;
  blockTime: number | null;
}

/** Stake accounts presented at once: each costs two node calls. */
const NODE_CALLS_AT_ONCE = 8;

const iso = (t: number | null | undefined) => (t == null ? null : new Date(t * 1000).toISOString());

/**
 * Lamports the account was created with, read from its first transaction (CreateAccountWithSeed or
 * CreateAccount funding it); null when the account came from elsewhere (split, merge) or history is gone.
 */
export async function initialFunding(
  rpc: SolanaRpc,
  pubkey: string,
  first: SigInfo | undefined,
): Promise<bigint | null> {
  if (!first) return null;
  const tx = await rpc.call(
    "getTransaction",
    [first.signature, { encoding: "base64", maxSupportedTransactionVersion: 0 }],
    SolanaAnswers.transaction,
  );
  const decoded = tx && decodeOrSkip(tx);
  if (!decoded) return null;
  for (const ix of decoded.instructions) {
    const lamports = fundedLamports(ix, pubkey);
    if (lamports !== null) return lamports;
  }
  return null;
}

/**
 * One stake account in the spec's shape. status: `active` while stake is effective (active or
 * deactivating), `inactive` otherwise (activating, inactive); `activation_state` gives the four-way value.
 * rewards_sol: lamports above what the account was funded with (inflation compounds into the delegation,
 * MEV tips sit as plain lamports), i.e. rewards still held by the account.
 */
async function present(rpc: SolanaRpc, stake: LoadedStake, epoch: bigint) {
  const sigs: SigInfo[] = await rpc.call(
    "getSignaturesForAddress",
    [stake.pubkey, { limit: 1000 }],
    SolanaAnswers.signatures,
  );
  const funding = await initialFunding(rpc, stake.pubkey, sigs.at(-1));
  const state = stakeStatus(stake.state, epoch);
  const d = stake.state.delegation;
  const active = d && (state === "active" || state === "deactivating") ? d.stake : 0n;
  const rewards = funding !== null && stake.lamports > funding ? stake.lamports - funding : 0n;
  return {
    pubkey: stake.pubkey,
    status: active > 0n ? "active" : "inactive",
    activation_state: state,
    balance: {
      total_sol: lamportsToSol(stake.lamports),
      active_sol: lamportsToSol(active),
      inactive_sol: lamportsToSol(stake.lamports - active),
      rewards_sol: lamportsToSol(rewards),
    },
    lamports: {
      total: stake.lamports.toString(),
      active: active.toString(),
      delegated: (d?.stake ?? 0n).toString(),
    },
    authorities: { stake_authority: stake.state.staker, withdraw_authority: stake.state.withdrawer },
    epochs: {
      activation_epoch: d ? Number(d.activationEpoch) : null,
      deactivation_epoch: d?.deactivationEpoch != null ? Number(d.deactivationEpoch) : null,
      current_epoch: Number(epoch),
    },
    voter: d?.voter ?? null,
    created_at: iso(sigs.at(-1)?.blockTime),
    updated_at: iso(sigs[0]?.blockTime),
  };
}

export async function walletStakeAccounts(rpc: SolanaRpc, wallet: string): Promise<LoadedStake[]> {
  const byOffset = (offset: number) =>
    rpc.call(
      "getProgramAccounts",
      [
        IDS.stake,
        { encoding: "base64", filters: [{ dataSize: 200 }, { memcmp: { offset, bytes: wallet } }] },
      ],
      SolanaAnswers.programAccounts,
    );
  // Withdrawer (44) and staker (12) may differ after an authorize; merge both lists.
  const [w, s] = await Promise.all([byOffset(44), byOffset(12)]);
  const seen = new Map<string, LoadedStake>();
  for (const r of [...w, ...s]) if (!seen.has(r.pubkey)) seen.set(r.pubkey, toStake(r.pubkey, r.account));
  return [...seen.values()].sort((a, b) => a.pubkey.localeCompare(b.pubkey));
}

/**
 * Stake accounts by address (getMultipleAccounts, 100 per call). With `allowClosed`, a missing account is
 * returned empty (history and rewards of a closed account still exist); otherwise it is a 404.
 */
export async function loadStakes(
  rpc: SolanaRpc,
  pubkeys: string[],
  opts: { allowClosed?: boolean } = {},
): Promise<LoadedStake[]> {
  const out: LoadedStake[] = [];
  for (let i = 0; i < pubkeys.length; i += 100) {
    const chunk = pubkeys.slice(i, i + 100);
    const r = await rpc.call("getMultipleAccounts", [chunk, { encoding: "base64" }], SolanaAnswers.accounts);
    chunk.forEach((k, j) => {
      const a = r.value[j] ?? null;
      out.push(!a && opts.allowClosed ? closedStake(k) : toStake(k, a));
    });
  }
  return out;
}

export async function balance(
  rpc: SolanaRpc,
  input: { walletPubKey?: string | undefined; stakeAccountPubKeys?: string[] | undefined },
  inScope: (withdrawer: string) => void,
) {
  const { walletPubKey: wallet, stakeAccountPubKeys: accounts } = input;
  if (wallet !== undefined && accounts !== undefined) {
    throw new AppError(
      "SELECTOR_CONFLICT",
      "Give exactly one of walletPubKey or stakeAccountPubKeys, not both",
    );
  }
  if (wallet === undefined && accounts === undefined) {
    throw new AppError("SELECTOR_REQUIRED", "Give exactly one of walletPubKey or stakeAccountPubKeys");
  }
  const epoch = await currentEpoch(rpc);
  if (wallet !== undefined) {
    assertPubkey("walletPubKey", wallet, true);
    inScope(wallet);
    const [bal, stakes] = await Promise.all([
      rpc.call("getBalance", [wallet, { commitment: "confirmed" }], SolanaAnswers.balance),
      walletStakeAccounts(rpc, wallet),
    ]);
    return {
      walletPubkey: wallet,
      balance: bal.value,
      stakeAccounts: await mapConcurrent(stakes, NODE_CALLS_AT_ONCE, (s) => present(rpc, s, epoch)),
    };
  }
  const list = [...new Set(accounts)];
  list.forEach((k, i) => {
    assertPubkey(`stakeAccountPubKeys.${i}`, k, false);
  });
  const stakes = await loadStakes(rpc, list);
  for (const s of stakes) if (s.state.withdrawer) inScope(s.state.withdrawer);
  return { stakeAccounts: await mapConcurrent(stakes, NODE_CALLS_AT_ONCE, (s) => present(rpc, s, epoch)) };
}

function closedStake(pubkey: string): LoadedStake {
  return {
    pubkey,
    lamports: 0n,
    state: { kind: "uninitialized", staker: null, withdrawer: null, lockup: null, delegation: null },
  };
}
