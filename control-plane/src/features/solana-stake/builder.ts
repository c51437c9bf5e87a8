import { base58 } from "@scure/base";
import { SYSTEM_PROGRAM_ID } from "../../chains/solana.ts";
import { BuilderError } from "../../errors.ts";
import { compactU16, createWithSeed, Writer } from "./codec.ts";

/** Program and sysvar IDs (docs/chains/solana.md §1.2). */
export const IDS = {
  system: SYSTEM_PROGRAM_ID,
  stake: "Stake11111111111111111111111111111111111111",
  stakeConfig: "StakeConfig11111111111111111111111111111111",
  rent: "SysvarRent111111111111111111111111111111111",
  clock: "SysvarC1ock11111111111111111111111111111111",
  stakeHistory: "SysvarStakeHistory1111111111111111111111111",
  recentBlockhashes: "SysvarRecentB1ockHashes11111111111111111111",
} as const;

/** Stake accounts are always 200 bytes (StakeStateV2). */
export const STAKE_ACCOUNT_SPACE = 200n;
export const MAX_TX_BYTES = 1232;
export const LAMPORTS_PER_SIGNATURE = 5000n;

export interface AccountMeta {
  pubkey: string;
  isSigner: boolean;
  isWritable: boolean;
}
export interface Instruction {
  programId: string;
  keys: AccountMeta[];
  data: Uint8Array;
}

/** The same collation web3.js v1 and Kit use, so our bytes equal theirs (order within a group is not consensus). */
const collator = new Intl.Collator("en", { sensitivity: "variant", numeric: false, caseFirst: "lower" });

/**
 * Compiles a legacy message (no version prefix). Hash-critical invariants: the fee payer is key 0; keys are
 * grouped writable signers, read-only signers, writable non-signers, read-only non-signers (program IDs are
 * read-only non-signers) and the header counts describe those groups; a key used twice keeps the union of
 * its flags. The wallet signs exactly these bytes.
 */
export function compileLegacyMessage(feePayer: string, blockhash: string, ixs: Instruction[]): Uint8Array {
  const metas = new Map<string, AccountMeta>();
  const add = (m: AccountMeta) => {
    const had = metas.get(m.pubkey);
    if (had) {
      had.isSigner ||= m.isSigner;
      had.isWritable ||= m.isWritable;
    } else metas.set(m.pubkey, { ...m });
  };
  add({ pubkey: feePayer, isSigner: true, isWritable: true });
  for (const ix of ixs) for (const k of ix.keys) add(k);
  for (const ix of ixs) add({ pubkey: ix.programId, isSigner: false, isWritable: false });
  const rank = (m: AccountMeta) => (m.isSigner ? 0 : 2) + (m.isWritable ? 0 : 1);
  const ordered = [...metas.values()].sort((a, b) => {
    if (a.pubkey === feePayer) return -1;
    if (b.pubkey === feePayer) return 1;
    return rank(a) - rank(b) || collator.compare(a.pubkey, b.pubkey);
  });
  const index = new Map(ordered.map((m, i) => [m.pubkey, i]));
  const signers = ordered.filter((m) => m.isSigner);
  const w = new Writer()
    .u8(signers.length)
    .u8(signers.filter((m) => !m.isWritable).length)
    .u8(ordered.filter((m) => !m.isSigner && !m.isWritable).length)
    .bytes(compactU16(ordered.length));
  for (const m of ordered) w.bytes(key(m.pubkey));
  w.bytes(key(blockhash)).bytes(compactU16(ixs.length));
  for (const ix of ixs) {
    w.u8(index.get(ix.programId) as number).bytes(compactU16(ix.keys.length));
    for (const k of ix.keys) w.u8(index.get(k.pubkey) as number);
    w.bytes(compactU16(ix.data.length)).bytes(ix.data);
  }
  return w.done();
}

/** Unsigned wire form: one zeroed 64-byte slot per required signature, then the message. */
export function unsignedTransaction(message: Uint8Array): Uint8Array {
  const numSigs = message[0] ?? 0;
  return new Writer()
    .bytes(compactU16(numSigs))
    .bytes(new Uint8Array(64 * numSigs))
    .bytes(message)
    .done();
}

function key(b58: string): Uint8Array {
  const k = base58.decode(b58);
  if (k.length !== 32) throw new BuilderError(`not a 32-byte key: ${b58}`);
  return k;
}
const w = (pubkey: string): AccountMeta => ({ pubkey, isSigner: false, isWritable: true });
const r = (pubkey: string): AccountMeta => ({ pubkey, isSigner: false, isWritable: false });
const s = (pubkey: string, isWritable = false): AccountMeta => ({ pubkey, isSigner: true, isWritable });

/** Derives the stake account a stake transaction will create: sha256(wallet ‖ seed ‖ Stake program). */
export function deriveStakeAccount(wallet: string, seed: string): string {
  return base58.encode(createWithSeed(key(wallet), seed, key(IDS.stake)));
}

/**
 * Seed for a new stake account: a fixed prefix plus caller-supplied randomness, ≤ 32 bytes. Random, so that
 * nobody can pre-fund the next address and block it (docs/chains/solana.md §1.5).
 */
export function stakeSeed(random: Uint8Array): string {
  const seed = `stk:${Buffer.from(random).toString("base64url")}`.slice(0, 32);
  return seed;
}

/** Optional durable nonce: AdvanceNonceAccount goes first and the nonce value replaces the blockhash. */
export interface NonceInput {
  nonceAccount: string;
  nonceValue: string;
}
export interface LifetimeInput {
  /** Recent blockhash, ignored when `nonce` is given. */
  blockhash: string;
  nonce?: NonceInput | undefined;
}

function advanceNonce(nonce: NonceInput, authority: string): Instruction {
  return {
    programId: IDS.system,
    keys: [w(nonce.nonceAccount), r(IDS.recentBlockhashes), s(authority)],
    data: new Writer().u32(4).done(),
  };
}

function finish(wallet: string, life: LifetimeInput, ixs: Instruction[]): BuiltTransaction {
  const all = life.nonce ? [advanceNonce(life.nonce, wallet), ...ixs] : ixs;
  const message = compileLegacyMessage(wallet, life.nonce ? life.nonce.nonceValue : life.blockhash, all);
  const tx = unsignedTransaction(message);
  if (tx.length > MAX_TX_BYTES)
    throw new BuilderError(`transaction is ${tx.length} bytes, over ${MAX_TX_BYTES}`);
  return { message, transaction: tx, base64: Buffer.from(tx).toString("base64") };
}

export interface BuiltTransaction {
  message: Uint8Array;
  transaction: Uint8Array;
  base64: string;
}

export interface StakeTxInput extends LifetimeInput {
  wallet: string;
  vote: string;
  seed: string;
  stakeLamports: bigint;
  rentLamports: bigint;
}

/**
 * CreateAccountWithSeed (base = funder = wallet, owner = Stake, 200 bytes, stake + rent lamports) +
 * Initialize (staker = withdrawer = wallet, no lockup) + DelegateStake, classic account layout. The wallet is
 * the only signer; the base account is omitted from CreateAccountWithSeed because it equals the funder.
 */
export function buildStakeTx(i: StakeTxInput): BuiltTransaction & { stakeAccount: string } {
  const stakeAccount = deriveStakeAccount(i.wallet, i.seed);
  const seed = Buffer.from(i.seed, "utf8");
  const create: Instruction = {
    programId: IDS.system,
    keys: [s(i.wallet, true), w(stakeAccount)],
    data: new Writer()
      .u32(3)
      .bytes(key(i.wallet))
      .u64(BigInt(seed.length))
      .bytes(seed)
      .u64(i.stakeLamports + i.rentLamports)
      .u64(STAKE_ACCOUNT_SPACE)
      .bytes(key(IDS.stake))
      .done(),
  };
  const initialize: Instruction = {
    programId: IDS.stake,
    keys: [w(stakeAccount), r(IDS.rent)],
    data: new Writer()
      .u32(0)
      .bytes(key(i.wallet))
      .bytes(key(i.wallet))
      .i64(0n)
      .u64(0n)
      .bytes(new Uint8Array(32))
      .done(),
  };
  const delegate: Instruction = {
    programId: IDS.stake,
    keys: [w(stakeAccount), r(i.vote), r(IDS.clock), r(IDS.stakeHistory), r(IDS.stakeConfig), s(i.wallet)],
    data: new Writer().u32(2).done(),
  };
  return { ...finish(i.wallet, i, [create, initialize, delegate]), stakeAccount };
}

export interface DeactivateTxInput extends LifetimeInput {
  wallet: string;
  stakeAccount: string;
}

/** Stake `Deactivate` (5): [stake W, Clock, stake authority S]. */
export function buildDeactivateTx(i: DeactivateTxInput): BuiltTransaction {
  return finish(i.wallet, i, [
    {
      programId: IDS.stake,
      keys: [w(i.stakeAccount), r(IDS.clock), s(i.wallet)],
      data: new Writer().u32(5).done(),
    },
  ]);
}

export interface WithdrawTxInput extends DeactivateTxInput {
  lamports: bigint;
  /** Defaults to the wallet. */
  recipient?: string;
}

/** Stake `Withdraw` (4): [stake W, recipient W, Clock, StakeHistory, withdraw authority S]. */
export function buildWithdrawTx(i: WithdrawTxInput): BuiltTransaction {
  return finish(i.wallet, i, [
    {
      programId: IDS.stake,
      keys: [w(i.stakeAccount), w(i.recipient ?? i.wallet), r(IDS.clock), r(IDS.stakeHistory), s(i.wallet)],
      data: new Writer().u32(4).u64(i.lamports).done(),
    },
  ]);
}
