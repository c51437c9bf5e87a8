import { base58 } from "@scure/base";
import { decodePubkey } from "../../chains/solana.ts";
import { AppError } from "../../errors.ts";
import { IDS } from "./builder.ts";
import { accountData, type RpcAccount, SolanaAnswers, type SolanaRpc } from "./client.ts";
import { isOnCurve } from "./codec.ts";
import { decodeStakeState, type StakeState } from "./stake-state.ts";

const VOTE_PROGRAM = "Vote111111111111111111111111111111111111111";

/**
 * A 32-byte base58 key. Wallets and vote accounts must also be on the ed25519 curve: an off-curve wallet can
 * never sign, so a transaction for it could never land.
 */
export function assertPubkey(field: string, value: string, onCurve: boolean): void {
  const bytes = decodePubkey(value);
  if (!bytes) throw invalidKey(field, "Not a base58-encoded 32-byte Solana address");
  if (onCurve && !isOnCurve(bytes))
    throw invalidKey(field, "Address is off the ed25519 curve and cannot sign");
}
function invalidKey(field: string, message: string) {
  return new AppError("INVALID_PUBKEY", `Invalid ${field}: ${message}`, { details: [{ field, message }] });
}

export interface LoadedStake {
  pubkey: string;
  lamports: bigint;
  state: StakeState;
}

export async function getAccount(rpc: SolanaRpc, pubkey: string): Promise<RpcAccount | null> {
  const r = await rpc.call("getAccountInfo", [pubkey, { encoding: "base64" }], SolanaAnswers.account);
  return r.value;
}

export function toStake(pubkey: string, a: RpcAccount | null): LoadedStake {
  if (!a) throw new AppError("STAKE_ACCOUNT_NOT_FOUND", `Stake account ${pubkey} does not exist`);
  const data = accountData(a);
  if (a.owner !== IDS.stake || data.length !== 200) {
    throw new AppError("NOT_A_STAKE_ACCOUNT", `${pubkey} is not a stake account`);
  }
  return { pubkey, lamports: BigInt(a.lamports), state: decodeStakeState(data) };
}

export async function loadStake(rpc: SolanaRpc, pubkey: string): Promise<LoadedStake> {
  return toStake(pubkey, await getAccount(rpc, pubkey));
}

export async function assertVoteAccount(rpc: SolanaRpc, vote: string): Promise<void> {
  const a = await getAccount(rpc, vote);
  if (!a || a.owner !== VOTE_PROGRAM) {
    throw new AppError("VALIDATOR_NOT_FOUND", `No vote account at ${vote}`, {
      details: [{ field: "validatorPubKey", message: "Not a vote account on this cluster" }],
    });
  }
}

/** Nonce account (80 bytes, System-owned): authority at offset 8, stored blockhash at offset 40. */
export async function loadNonce(rpc: SolanaRpc, nonce: string, wallet: string): Promise<string> {
  const a = await getAccount(rpc, nonce);
  const data = a ? accountData(a) : new Uint8Array(0);
  const bad = (message: string) =>
    new AppError("INVALID_NONCE_ACCOUNT", message, { details: [{ field: "nonceAccountPubKey", message }] });
  if (!a || a.owner !== IDS.system || data.length !== 80) throw bad("Not an initialised nonce account");
  if (Buffer.from(data).readUInt32LE(4) !== 1) throw bad("Nonce account is not initialised");
  if (base58.encode(data.subarray(8, 40)) !== wallet) throw bad("The wallet is not the nonce authority");
  return base58.encode(data.subarray(40, 72));
}

export interface Epochs {
  epoch: bigint;
}
export async function currentEpoch(rpc: SolanaRpc): Promise<bigint> {
  const info = await rpc.call("getEpochInfo", [{ commitment: "confirmed" }], SolanaAnswers.epochInfo);
  return BigInt(info.epoch);
}
