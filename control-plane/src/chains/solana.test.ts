import assert from "node:assert/strict";
import { test } from "node:test";
import { fundedLamports, SYSTEM_PROGRAM_ID } from "./solana.ts";

const account = "Stake11111111111111111111111111111111111111";
const ix = (data: Buffer, programId = SYSTEM_PROGRAM_ID) => ({
  programId,
  accounts: ["wallet", account],
  data: new Uint8Array(data),
});

test("funded lamports of CreateAccount and CreateAccountWithSeed (docs/chains/solana.md §1.3)", () => {
  const create = Buffer.alloc(52);
  create.writeBigUInt64LE(2_282_880n, 4);
  assert.equal(fundedLamports(ix(create), account), 2_282_880n);

  const seed = Buffer.from("stake:0");
  const withSeed = Buffer.alloc(4 + 32 + 8 + seed.length + 8 + 8 + 32);
  withSeed.writeUInt32LE(3, 0);
  withSeed.writeBigUInt64LE(BigInt(seed.length), 36);
  seed.copy(withSeed, 44);
  withSeed.writeBigUInt64LE(1_002_282_880n, 44 + seed.length);
  assert.equal(fundedLamports(ix(withSeed), account), 1_002_282_880n);
});

test("funded lamports: null for another program, account, instruction or a short or lying layout", () => {
  const create = Buffer.alloc(52);
  assert.equal(fundedLamports(ix(create, "Vote111111111111111111111111111111111111111"), account), null);
  assert.equal(fundedLamports({ ...ix(create), accounts: ["wallet", "other"] }, account), null);
  const transfer = Buffer.alloc(12);
  transfer.writeUInt32LE(2, 0);
  assert.equal(fundedLamports(ix(transfer), account), null);
  assert.equal(fundedLamports(ix(Buffer.alloc(3)), account), null);
  const lying = Buffer.alloc(60);
  lying.writeUInt32LE(3, 0);
  lying.writeBigUInt64LE(1n << 40n, 36);
  assert.equal(fundedLamports(ix(lying), account), null);
});
