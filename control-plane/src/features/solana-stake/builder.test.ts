import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import {
  PublicKey,
  StakeInstruction,
  StakeProgram,
  SystemInstruction,
  SystemProgram,
  Transaction,
} from "@solana/web3.js";
import { decodePubkey } from "../../chains/solana.ts";
import {
  buildDeactivateTx,
  buildStakeTx,
  buildWithdrawTx,
  deriveStakeAccount,
  stakeSeed,
} from "./builder.ts";
import { compactU16, isOnCurve, lamportsToSol } from "./codec.ts";
import { decodeTransaction } from "./message.ts";
import { decodeStakeState, stakeStatus } from "./stake-state.ts";

// Chain notes §2: wallet seed 32×0x01, vote seed 32×0x02, blockhash 32×0x07.
const wallet = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(1)));
const vote = base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(2)));
const blockhash = base58.encode(new Uint8Array(32).fill(7));
const stakeAccount = "2pzMUyXtmL2mMo1229sWS38GnfdQjcTFuR5DkNAqv3Lr";

const V_STAKE =
  "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAcJiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wbJtWYjJtz7aFggJWDD0RdoRXidHuFEHDa4p/tUmnZbwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgTl3Dqh9F19Wo1Rmw0x+zMuNipG07jeiXfYPW4/Js5QGodgXkTdUKpg0N73+KnqyVX9TXIp4citopJ3AAAAAAAah2BelAgULaAeR5s5tuI4eW3FQ9h/GeQpOtNEAAAAABqfVFxjHdMkoVmOYaR1etoteuKObS21cc1VbIQAAAAAGp9UXGSxcUSGMyUw9SvF/WNruCJuh/UTj29mKAAAAAAan1RcZNYTQ/u2bs0MdEyBr5UQoG1e4VmzFN1/0AAAABwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcDAgIAAWMDAAAAiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wHAAAAAAAAAHN0YWtlOjCAn707AAAAAMgAAAAAAAAABqHYF5E3VCqYNDe9/ip6slV/U1yKeHIraKSdwAAAAAAEAgEHdAAAAACKiOPddAnxlf1S2y08ul1yymcJvx2UEhvzdIgBtA9vXIqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29cAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAYBAwYIBQAEAgAAAA==";
const V_DEACTIVATE =
  "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAIEiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wbJtWYjJtz7aFggJWDD0RdoRXidHuFEHDa4p/tUmnZbwah2BeRN1QqmDQ3vf4qerJVf1NcinhyK2ikncAAAAAABqfVFxjHdMkoVmOYaR1etoteuKObS21cc1VbIQAAAAAHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwECAwEDAAQFAAAA";
const V_WITHDRAW =
  "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAMFiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wbJtWYjJtz7aFggJWDD0RdoRXidHuFEHDa4p/tUmnZbwah2BeRN1QqmDQ3vf4qerJVf1NcinhyK2ikncAAAAAABqfVFxjHdMkoVmOYaR1etoteuKObS21cc1VbIQAAAAAGp9UXGTWE0P7tm7NDHRMga+VEKBtXuFZsxTdf9AAAAAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHAQIFAQADBAAMBAAAAICfvTsAAAAA";
const V_NONCE =
  "AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAgLiojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wbJtWYjJtz7aFggJWDD0RdoRXidHuFEHDa4p/tUmnZbxWUvtl3lZIk8eoSFGq1uiMPPzfz95yx+dnNDt/uYHn4AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACBOXcOqH0XX1ajVGbDTH7My42KkbTuN6Jd9g9bj8mzlAah2BeRN1QqmDQ3vf4qerJVf1NcinhyK2ikncAAAAAABqHYF6UCBQtoB5Hmzm24jh5bcVD2H8Z5Ck600QAAAAAGp9UXGMd0yShWY5hpHV62i164o5tLbVxzVVshAAAAAAan1RcZLFaO4IqEX3PSl4jPA1wxRbIas0TYBi6pQAAABqfVFxksXFEhjMlMPUrxf1ja7gibof1E49vZigAAAAAGp9UXGTWE0P7tm7NDHRMga+VEKBtXuFZsxTdf9AAAAAkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJCQkJBAMDAggABAQAAAADAgABYwMAAACKiOPddAnxlf1S2y08ul1yymcJvx2UEhvzdIgBtA9vXAcAAAAAAAAAc3Rha2U6MICfvTsAAAAAyAAAAAAAAAAGodgXkTdUKpg0N73+KnqyVX9TXIp4citopJ3AAAAAAAUCAQl0AAAAAIqI4910CfGV/VLbLTy6XXLKZwm/HZQSG/N0iAG0D29ciojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAFBgEEBwoGAAQCAAAA";

describe("solana codecs", () => {
  it("derives the notes' keys and stake address", () => {
    assert.equal(wallet, "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9");
    assert.equal(vote, "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu");
    assert.equal(blockhash, "US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCELFx");
    assert.equal(deriveStakeAccount(wallet, "stake:0"), stakeAccount);
  });
  it("round-trips base58 with leading zeros and rejects bad text", () => {
    assert.equal(base58.encode(new Uint8Array(32)), "11111111111111111111111111111111");
    assert.deepEqual(base58.decode("11111111111111111111111111111111"), new Uint8Array(32));
    assert.equal(decodePubkey("0OIl"), null);
    assert.equal(decodePubkey("abc"), null);
    assert.equal(decodePubkey(`${wallet}1`), null);
  });
  it("tells on-curve wallets from off-curve derived addresses", () => {
    assert.equal(isOnCurve(base58.decode(wallet)), true);
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from("x")], StakeProgram.programId);
    assert.equal(isOnCurve(pda.toBytes()), false);
    for (let i = 0; i < 64; i++) {
      const bytes = new Uint8Array(32).map((_, j) => (i * 31 + j * 17) & 0xff);
      assert.equal(isOnCurve(bytes), PublicKey.isOnCurve(bytes));
    }
  });
  it("encodes compact-u16 and lamports", () => {
    assert.deepEqual(compactU16(127), [0x7f]);
    assert.deepEqual(compactU16(128), [0x80, 0x01]);
    assert.deepEqual(compactU16(0x3fff + 1), [0x80, 0x80, 0x01]);
    assert.equal(lamportsToSol(1_002_282_880n), "1.00228288");
    assert.equal(lamportsToSol(1n), "0.000000001");
    assert.equal(lamportsToSol(5_000_000_000n), "5");
  });
  it("bounds the random seed to 32 bytes", () => {
    const seed = stakeSeed(new Uint8Array(32).fill(0xab));
    assert.ok(Buffer.byteLength(seed) <= 32);
  });
});

describe("solana builders (golden vectors, docs/chains/solana.md §2)", () => {
  const common = { wallet, blockhash };
  it("stake: CreateAccountWithSeed + Initialize + DelegateStake", () => {
    const built = buildStakeTx({
      ...common,
      vote,
      seed: "stake:0",
      stakeLamports: 1_000_000_000n,
      rentLamports: 2_282_880n,
    });
    assert.equal(built.stakeAccount, stakeAccount);
    assert.equal(built.base64, V_STAKE);
    assert.equal(built.transaction.length, 628);

    const tx = Transaction.from(built.transaction);
    assert.equal(tx.feePayer?.toBase58(), wallet);
    assert.equal(tx.instructions.length, 3);
    const [c, init, del] = tx.instructions as [never, never, never];
    assert.equal(SystemInstruction.decodeInstructionType(c), "CreateWithSeed");
    const cp = SystemInstruction.decodeCreateWithSeed(c);
    assert.equal(cp.lamports, 1_002_282_880);
    assert.equal(cp.space, 200);
    assert.equal(cp.seed, "stake:0");
    assert.equal(cp.basePubkey.toBase58(), wallet);
    assert.ok(cp.programId.equals(StakeProgram.programId));
    const ip = StakeInstruction.decodeInitialize(init);
    assert.equal(ip.authorized.staker.toBase58(), wallet);
    assert.equal(ip.authorized.withdrawer.toBase58(), wallet);
    const dp = StakeInstruction.decodeDelegate(del);
    assert.equal(dp.votePubkey.toBase58(), vote);
    assert.equal(dp.stakePubkey.toBase58(), stakeAccount);
  });
  it("deactivate", () => {
    const built = buildDeactivateTx({ ...common, stakeAccount });
    assert.equal(built.base64, V_DEACTIVATE);
    const p = StakeInstruction.decodeDeactivate(Transaction.from(built.transaction).instructions[0] as never);
    assert.equal(p.authorizedPubkey.toBase58(), wallet);
  });
  it("withdraw everything to the wallet", () => {
    const built = buildWithdrawTx({ ...common, stakeAccount, lamports: 1_002_282_880n });
    assert.equal(built.base64, V_WITHDRAW);
    const p = StakeInstruction.decodeWithdraw(Transaction.from(built.transaction).instructions[0] as never);
    assert.equal(p.lamports, 1_002_282_880);
    assert.equal(p.toPubkey.toBase58(), wallet);
  });
  it("stake with a durable nonce puts AdvanceNonceAccount first", () => {
    const nonceAccount = "2TF7YuTVDHy9kd2jEuPYZf42NeKSgGRho7219GLPkbeP";
    const nonceValue = base58.encode(new Uint8Array(32).fill(9));
    const built = buildStakeTx({
      ...common,
      vote,
      seed: "stake:0",
      stakeLamports: 1_000_000_000n,
      rentLamports: 2_282_880n,
      nonce: { nonceAccount, nonceValue },
    });
    assert.equal(built.base64, V_NONCE);
    const tx = Transaction.from(built.transaction);
    assert.equal(tx.recentBlockhash, nonceValue);
    const adv = SystemInstruction.decodeNonceAdvance(tx.instructions[0] as never);
    assert.equal(adv.noncePubkey.toBase58(), nonceAccount);
    assert.ok(
      (tx.instructions[0] as { programId: typeof SystemProgram.programId }).programId.equals(
        SystemProgram.programId,
      ),
    );
  });
});

describe("stake state", () => {
  it("decodes a delegated account and derives status", () => {
    const d = Buffer.alloc(200);
    d.writeUInt32LE(2, 0);
    d.writeBigUInt64LE(2_282_880n, 4);
    Buffer.from(base58.decode(wallet)).copy(d, 12);
    Buffer.from(base58.decode(wallet)).copy(d, 44);
    Buffer.from(base58.decode(vote)).copy(d, 124);
    d.writeBigUInt64LE(1_000_000_000n, 156);
    d.writeBigUInt64LE(3n, 164);
    d.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 172);
    const s = decodeStakeState(d);
    assert.equal(s.kind, "delegated");
    assert.equal(s.staker, wallet);
    assert.equal(s.delegation?.voter, vote);
    assert.equal(s.delegation?.stake, 1_000_000_000n);
    assert.equal(s.delegation?.deactivationEpoch, null);
    assert.equal(stakeStatus(s, 3n), "activating");
    assert.equal(stakeStatus(s, 4n), "active");
    d.writeBigUInt64LE(5n, 172);
    const t = decodeStakeState(d);
    assert.equal(stakeStatus(t, 5n), "deactivating");
    assert.equal(stakeStatus(t, 6n), "inactive");
    assert.throws(() => decodeStakeState(Buffer.alloc(199)));
  });
});

describe("legacy transaction decoder", () => {
  it("reads back the golden stake transaction", () => {
    const tx = decodeTransaction(Buffer.from(V_STAKE, "base64"));
    assert.equal(tx.signatures.length, 1);
    assert.equal(tx.accountKeys[0], wallet);
    assert.equal(tx.recentBlockhash, blockhash);
    assert.deepEqual(
      tx.instructions.map((i) => [i.programId, i.accounts.length, i.data[0]]),
      [
        ["11111111111111111111111111111111", 2, 3],
        ["Stake11111111111111111111111111111111111111", 2, 0],
        ["Stake11111111111111111111111111111111111111", 6, 2],
      ],
    );
    assert.equal(tx.instructions[0]?.accounts[1], stakeAccount);
  });
  it("rejects truncated and versioned input", () => {
    const bytes = Buffer.from(V_DEACTIVATE, "base64");
    assert.throws(() => decodeTransaction(bytes.subarray(0, bytes.length - 3)), /truncated/);
    const v1 = Buffer.from(bytes);
    v1[65] = 0x81;
    assert.throws(() => decodeTransaction(v1), /unsupported message version 1/);
  });
});
