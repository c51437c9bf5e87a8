import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import {
  Connection,
  Keypair,
  PublicKey,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
} from "@solana/web3.js";
import {
  buildDeactivateTx,
  buildStakeTx,
  buildWithdrawTx,
} from "../../control-plane/src/features/solana-stake/builder.ts";
import { decodeStakeState, stakeStatus } from "../../control-plane/src/features/solana-stake/stake-state.ts";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { readDelegation } from "../../devnet/solana/stake-layout.ts";
import { eventually } from "../helpers/eventually.ts";

const secret = new Uint8Array(32).fill(0x11);
const wallet = base58.encode(ed25519.getPublicKey(secret));

/** Signs an unsigned wire transaction whose only signer is `secret`'s key. */
function sign(unsigned: Uint8Array): Uint8Array {
  const tx = Uint8Array.from(unsigned);
  tx.set(ed25519.sign(tx.subarray(65), secret), 1);
  return tx;
}

describe("simulated Solana node executes the builders' transactions", () => {
  let dev: SolanaDevnet;
  before(async () => {
    dev = await startSolanaDevnet({ fund: [{ pubkey: wallet, lamports: 10_000_000_000n }] });
  });
  after(() => dev.close());

  it("stakes, earns per epoch, deactivates and withdraws everything", () => {
    const chain = dev.chain;
    const vote = chain.validators[0]?.vote as string;
    const rent = chain.svm.minimumBalanceForRentExemption(200n);
    const start = chain.svm.getBalance(wallet as never) as bigint;
    const built = buildStakeTx({
      wallet,
      vote,
      seed: "stk:test",
      stakeLamports: 2_000_000_000n,
      rentLamports: rent,
      blockhash: chain.svm.latestBlockhash(),
    });
    chain.submit(sign(built.transaction));
    const stakeAcct = () => chain.stakeAccounts().find((a) => a.pubkey === built.stakeAccount);
    const s0 = decodeStakeState((stakeAcct() as { data: Uint8Array }).data);
    assert.equal(s0.kind, "delegated");
    assert.equal(s0.withdrawer, wallet);
    assert.equal(stakeStatus(s0, chain.epoch), "activating");

    dev.advanceEpochs(3);
    const s1 = decodeStakeState((stakeAcct() as { data: Uint8Array }).data);
    assert.equal(stakeStatus(s1, chain.epoch), "active");
    assert.ok((s1.delegation?.stake ?? 0n) > 2_000_000_000n, "inflation compounds into the delegation");
    // The node reads the program's bytes its own way; both readings agree.
    const own = readDelegation((stakeAcct() as { data: Uint8Array }).data);
    assert.deepEqual(own, {
      staker: s1.staker,
      withdrawer: s1.withdrawer,
      voter: s1.delegation?.voter,
      stake: s1.delegation?.stake,
      activationEpoch: s1.delegation?.activationEpoch,
      deactivationEpoch: s1.delegation?.deactivationEpoch,
    });
    assert.equal(chain.mev.filter((m) => m.claimant === built.stakeAccount).length, 2);

    // Withdrawing while active fails on chain.
    const lamports = (stakeAcct() as { lamports: bigint }).lamports;
    const early = buildWithdrawTx({
      wallet,
      stakeAccount: built.stakeAccount,
      lamports,
      blockhash: chain.svm.latestBlockhash(),
    });
    assert.throws(() => chain.submit(sign(early.transaction)), /failed/i);

    chain.submit(
      sign(
        buildDeactivateTx({
          wallet,
          stakeAccount: built.stakeAccount,
          blockhash: chain.svm.latestBlockhash(),
        }).transaction,
      ),
    );
    dev.advanceEpochs(1);
    const final = (stakeAcct() as { lamports: bigint }).lamports;
    const w = buildWithdrawTx({
      wallet,
      stakeAccount: built.stakeAccount,
      lamports: final,
      blockhash: chain.svm.latestBlockhash(),
    });
    chain.submit(sign(w.transaction));
    assert.equal(stakeAcct(), undefined, "full withdrawal closes the account");
    const end = chain.svm.getBalance(wallet as never) as bigint;
    // Four fees: stake, the failed early withdraw (a failed transaction still pays), deactivate, withdraw.
    const earned = final - 2_000_000_000n - rent;
    assert.equal(end, start + earned - 4n * 5000n);
  });
});

describe("simulated Solana node answers @solana/web3.js as a real node does", () => {
  let dev: SolanaDevnet;
  let connection: Connection;
  const keypair = Keypair.fromSeed(new Uint8Array(32).fill(0x12));
  const rpc = async (method: string, params: unknown[]) => {
    const res = await fetch(dev.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return (await res.json()) as {
      result?: { context: { slot: number }; value: ({ confirmationStatus: string } | null)[] };
      error?: { code: number; message: string };
    };
  };
  before(async () => {
    dev = await startSolanaDevnet({
      slotsPerEpoch: 1000n,
      fund: [{ pubkey: keypair.publicKey.toBase58(), lamports: 10_000_000_000n }],
    });
    connection = new Connection(dev.url, { commitment: "confirmed", wsEndpoint: dev.wsUrl });
  });
  after(async () => {
    // The client's websocket reconnects for ever once the server is gone unless told not to.
    const ws = (
      connection as unknown as { _rpcWebSocket: { setAutoReconnect(on: boolean): void; close(): void } }
    )._rpcWebSocket;
    ws.setAutoReconnect(false);
    ws.close();
    await dev.close();
  });

  it("sendAndConfirmTransaction confirms a stake built by the area's builder; rewards follow an epoch", async () => {
    const vote = dev.chain.validators[0]?.vote as string;
    // The client checks the answer's shape (epochCredits and all) before handing it over.
    const { current } = await connection.getVoteAccounts();
    assert.equal(current[0]?.votePubkey, vote);
    const built = buildStakeTx({
      wallet: keypair.publicKey.toBase58(),
      vote,
      seed: "stk:web3",
      stakeLamports: 2_000_000_000n,
      rentLamports: dev.chain.svm.minimumBalanceForRentExemption(200n),
      blockhash: dev.chain.svm.latestBlockhash(),
    });
    const tx = Transaction.from(Buffer.from(built.transaction));
    const signature = await sendAndConfirmTransaction(connection, tx, [keypair]);
    assert.equal(signature, dev.chain.txs.at(-1)?.signature);
    const [status] = (await connection.getSignatureStatuses([signature])).value;
    assert.deepEqual(status, {
      slot: dev.chain.txs.at(-1)?.slot,
      confirmations: null,
      err: null,
      status: { Ok: null },
      confirmationStatus: "finalized",
    });
    // Active from the next epoch, paid at the end of the one after (the devnet's own record is the reference).
    dev.advanceEpochs(2);
    const [reward] = await connection.getInflationReward([new PublicKey(built.stakeAccount)]);
    assert.ok(reward && reward.amount > 0, "inflation paid after an active epoch");
    assert.equal(reward.amount, dev.chain.inflation.get(`${built.stakeAccount}:1`)?.amount);
  });

  it("getSignatureStatuses: the RPC's shape, its status cache, searchTransactionHistory and its limits", async () => {
    const transfer = new Transaction().add(
      SystemProgram.transfer({
        fromPubkey: keypair.publicKey,
        toPubkey: new PublicKey(wallet),
        lamports: 1_000_000_000,
      }),
    );
    // The other way to send: sign it oneself, send the bytes, confirm against the blockhash's expiry.
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    transfer.recentBlockhash = blockhash;
    transfer.feePayer = keypair.publicKey;
    transfer.sign(keypair);
    const known = await connection.sendRawTransaction(transfer.serialize());
    const confirmed = await connection.confirmTransaction({
      signature: known,
      blockhash,
      lastValidBlockHeight,
    });
    assert.equal(confirmed.value.err, null);
    const unknown = base58.encode(new Uint8Array(64).fill(7));
    const recent = await rpc("getSignatureStatuses", [[known, unknown]]);
    assert.equal(recent.result?.context.slot, Number(dev.chain.slot));
    assert.equal(recent.result?.value.length, 2);
    assert.equal(recent.result?.value[0]?.confirmationStatus, "finalized");
    assert.equal(recent.result?.value[1], null);
    // Past the recent status cache (300 slots) only a history search finds it.
    dev.advanceEpochs(1);
    assert.deepEqual((await rpc("getSignatureStatuses", [[known]])).result?.value, [null]);
    const searched = await rpc("getSignatureStatuses", [[known], { searchTransactionHistory: true }]);
    assert.equal(searched.result?.value[0]?.confirmationStatus, "finalized");
    assert.equal((await rpc("getSignatureStatuses", [[known], {}])).error?.code, -32602);
    const many = Array.from({ length: 257 }, () => unknown);
    assert.match((await rpc("getSignatureStatuses", [many])).error?.message ?? "", /max 256/);
  });

  it("closes epochs on a timer when asked to (npm start), and only then", async () => {
    const timed = await startSolanaDevnet({ slotsPerEpoch: 10n, epochMs: 50 });
    try {
      await eventually(() => timed.chain.epoch >= 2n, { what: "two epochs closed by the timer" });
    } finally {
      await timed.close();
    }
    const still = dev.chain.epoch;
    await eventually(async () => (await rpc("getEpochInfo", [])).result, { what: "an answer" });
    assert.equal(dev.chain.epoch, still, "no timer without epochMs");
  });
});
