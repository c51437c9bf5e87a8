import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import {
  buildDeactivateTx,
  buildStakeTx,
  buildWithdrawTx,
} from "../../control-plane/src/features/solana-stake/builder.ts";
import { decodeStakeState, stakeStatus } from "../../control-plane/src/features/solana-stake/stake-state.ts";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { readDelegation } from "../../devnet/solana/stake-layout.ts";

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
