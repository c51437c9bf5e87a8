import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { Keypair, PublicKey, SystemProgram, Transaction, VoteInit, VoteProgram } from "@solana/web3.js";
import { Clock, EpochSchedule, LiteSVM } from "litesvm";
import { readDelegation, withStake } from "./stake-layout.ts";

export const STAKE_PROGRAM = "Stake11111111111111111111111111111111111111";
const SLOT_MS = 400n;
/** Slots a blockhash stays valid for (Solana's MAX_PROCESSING_AGE). */
const MAX_PROCESSING_AGE = 150n;

export interface Validator {
  vote: string;
  identity: string;
  name: string;
  commission: number;
}
export interface InflationReward {
  epoch: number;
  effectiveSlot: number;
  amount: number;
  postBalance: number;
  commission: number;
}
export interface MevReward {
  claimant: string;
  stake_authority: string;
  withdraw_authority: string;
  validator_vote_account: string;
  epoch: number;
  amount: number;
  priority_fee_amount: number;
  claim_status_account: string;
  priority_fee_claim_status_account: string;
}
export interface LoggedTx {
  signature: string;
  slot: number;
  blockTime: number;
  wire: Uint8Array;
  keys: string[];
  fee: number;
}

export interface ChainOptions {
  slotsPerEpoch?: bigint;
  genesisUnix?: bigint;
  /** Inflation paid per active epoch, parts per million of the delegation (before commission). */
  inflationPpm?: bigint;
  /** MEV tips per active epoch, parts per million of the delegation (after MEV commission). */
  mevPpm?: bigint;
  fund?: { pubkey: string; lamports: bigint }[];
}

/**
 * A Solana cluster for tests: LiteSVM executes every submitted transaction (signatures, system and stake
 * programs for real); this wrapper adds what a single-slot VM lacks — an epoch clock, per-epoch inflation
 * credited into delegations, MEV tips paid as plain lamports, and a transaction log for signature queries.
 * StakeHistory is left empty, so the stake program treats a delegation as fully effective one epoch after
 * activation and fully inactive one epoch after deactivation (its "no history" rule), matching epoch-field status.
 */
export class SolanaChain {
  readonly svm: LiteSVM;
  readonly slotsPerEpoch: bigint;
  readonly genesisUnix: bigint;
  readonly validators: Validator[] = [];
  readonly inflation = new Map<string, InflationReward>();
  readonly mev: MevReward[] = [];
  readonly txs: LoggedTx[] = [];
  private readonly inflationPpm: bigint;
  private readonly mevPpm: bigint;
  slot: bigint;
  private blockhashSlot = 1n;

  constructor(opts: ChainOptions = {}) {
    this.slotsPerEpoch = opts.slotsPerEpoch ?? 432_000n;
    this.genesisUnix = opts.genesisUnix ?? BigInt(Math.floor(Date.now() / 1000));
    this.inflationPpm = opts.inflationPpm ?? 400n;
    this.mevPpm = opts.mevPpm ?? 50n;
    this.svm = new LiteSVM();
    this.svm.setEpochSchedule(new EpochSchedule(this.slotsPerEpoch, this.slotsPerEpoch, false, 0n, 0n));
    this.slot = 1n;
    this.setClock();
    for (const f of opts.fund ?? []) this.airdrop(f.pubkey, f.lamports);
    for (let i = 0; i < 2; i++) this.createValidator(i);
  }

  get epoch(): bigint {
    return this.slot / this.slotsPerEpoch;
  }
  blockTime(slot: bigint): number {
    return Number(this.genesisUnix + (slot * SLOT_MS) / 1000n);
  }
  private setClock(): void {
    const epoch = this.epoch;
    const start = this.blockTime(epoch * this.slotsPerEpoch);
    this.svm.setClock(
      new Clock(this.slot, BigInt(start), epoch, epoch + 1n, BigInt(this.blockTime(this.slot))),
    );
  }

  airdrop(pubkey: string, lamports: bigint): void {
    const had = this.svm.getBalance(pubkey as never) ?? 0n;
    this.svm.setAccount({
      address: pubkey as never,
      lamports: (had + lamports) as never,
      data: new Uint8Array(0),
      programAddress: "11111111111111111111111111111111" as never,
      executable: false,
    } as never);
  }

  /** Deterministic validator: identity and vote keys from seeds 32×0xE0+i / 0xF0+i (test wallets use lower bytes). */
  private createValidator(i: number): void {
    const identity = Keypair.fromSeed(new Uint8Array(32).fill(0xe0 + i));
    const vote = Keypair.fromSeed(new Uint8Array(32).fill(0xf0 + i));
    this.airdrop(identity.publicKey.toBase58(), 10_000_000_000n);
    const tx = new Transaction({
      feePayer: identity.publicKey,
      recentBlockhash: this.svm.latestBlockhash(),
    }).add(
      ...VoteProgram.createAccount({
        fromPubkey: identity.publicKey,
        votePubkey: vote.publicKey,
        voteInit: new VoteInit(identity.publicKey, identity.publicKey, identity.publicKey, 5),
        lamports: Number(this.svm.minimumBalanceForRentExemption(BigInt(VoteProgram.space))),
      }).instructions,
    );
    tx.sign(identity, vote);
    this.submit(tx.serialize());
    this.validators.push({
      vote: vote.publicKey.toBase58(),
      identity: identity.publicKey.toBase58(),
      name: `Devnet Validator ${i + 1}`,
      commission: 5,
    });
  }

  /** Executes a signed wire transaction; returns its signature or throws with the program logs. */
  submit(wire: Uint8Array): string {
    const { sigs, keys } = splitWire(wire);
    const signatures: Record<string, Uint8Array> = {};
    sigs.forEach((sig, i) => {
      signatures[keys[i] as string] = sig;
    });
    const message = wire.subarray(1 + 64 * sigs.length);
    const result = this.svm.sendTransaction({ messageBytes: message, signatures } as never);
    if ("err" in result && typeof result.err === "function") {
      const logs = result.meta().logs().join("\n");
      throw new Error(`Transaction failed: ${String(result.toString())}\n${logs}`);
    }
    const signature = base58.encode(sigs[0] as Uint8Array);
    this.txs.push({
      signature,
      slot: Number(this.slot),
      blockTime: this.blockTime(this.slot),
      wire: Uint8Array.from(wire),
      keys,
      fee: 5000 * sigs.length,
    });
    // Many transactions share a slot near an epoch's end rather than cross into the next epoch: only
    // advanceEpochs closes an epoch (it pays the rewards), so a busy epoch never skips its payout.
    if ((this.slot + 1n) % this.slotsPerEpoch !== 0n) this.slot += 1n;
    this.setClock();
    return signature;
  }

  stakeAccounts(): { pubkey: string; lamports: bigint; data: Uint8Array }[] {
    return this.svm
      .getProgramAccounts(STAKE_PROGRAM as never)
      .map((a) => ({ pubkey: a.address, lamports: BigInt(a.lamports), data: a.data as Uint8Array }));
  }

  /** Closes the current epoch: pays inflation (compounding) and MEV (plain lamports), then moves the clock. */
  advanceEpochs(n = 1): void {
    for (let k = 0; k < n; k++) {
      const epoch = this.epoch;
      const nextSlot = (epoch + 1n) * this.slotsPerEpoch;
      for (const acct of this.stakeAccounts()) this.payRewards(acct, epoch, nextSlot);
      this.slot = nextSlot;
      this.setClock();
    }
    // Blocks went by: the blockhash expires once 150 slots have passed since it was issued, as on a real
    // cluster (LiteSVM keeps one blockhash, so a short epoch keeps it across the epoch boundary).
    if (this.slot - this.blockhashSlot >= MAX_PROCESSING_AGE) {
      this.svm.expireBlockhash();
      this.blockhashSlot = this.slot;
    }
  }

  private payRewards(
    acct: { pubkey: string; lamports: bigint; data: Uint8Array },
    epoch: bigint,
    effective: bigint,
  ) {
    const d = readDelegation(acct.data);
    if (!d || d.activationEpoch >= epoch || (d.deactivationEpoch !== null && d.deactivationEpoch <= epoch))
      return;
    const validator = this.validators.find((v) => v.vote === d.voter);
    const commission = BigInt(validator?.commission ?? 0);
    const inflation = (d.stake * this.inflationPpm * (100n - commission)) / 100n / 1_000_000n;
    const tip = (d.stake * this.mevPpm) / 1_000_000n;
    const data = withStake(acct.data, d.stake + inflation);
    const post = acct.lamports + inflation;
    this.inflation.set(`${acct.pubkey}:${epoch}`, {
      epoch: Number(epoch),
      effectiveSlot: Number(effective),
      amount: Number(inflation),
      postBalance: Number(post),
      commission: Number(commission),
    });
    this.mev.push({
      claimant: acct.pubkey,
      stake_authority: d.staker,
      withdraw_authority: d.withdrawer,
      validator_vote_account: d.voter,
      epoch: Number(epoch),
      amount: Number(tip),
      priority_fee_amount: 0,
      claim_status_account: base58.encode(ed25519.utils.randomSecretKey()),
      priority_fee_claim_status_account: base58.encode(ed25519.utils.randomSecretKey()),
    });
    this.svm.setAccount({
      address: acct.pubkey as never,
      lamports: (post + tip) as never,
      data,
      programAddress: STAKE_PROGRAM as never,
      executable: false,
    } as never);
  }
}

/** Splits a legacy wire transaction into its signatures and the message's account keys. */
export function splitWire(wire: Uint8Array): { sigs: Uint8Array[]; keys: string[] } {
  const n = wire[0] ?? 0;
  if (n > 127) throw new Error("too many signatures");
  const sigs = Array.from({ length: n }, (_, i) => wire.subarray(1 + 64 * i, 65 + 64 * i));
  let o = 1 + 64 * n + 3;
  const nKeys = wire[o] ?? 0;
  if (nKeys > 127) throw new Error("too many keys");
  o += 1;
  const keys = Array.from({ length: nKeys }, (_, i) =>
    base58.encode(wire.subarray(o + 32 * i, o + 32 * i + 32)),
  );
  return { sigs, keys };
}

export { PublicKey, SystemProgram };
