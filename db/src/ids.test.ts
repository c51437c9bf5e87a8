import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { base58 } from "@scure/base";
import { base58Of16, idPattern, newId } from "./ids.ts";

const same = (bytes: Uint8Array) =>
  assert.equal(base58Of16(bytes), base58.encode(bytes), Buffer.from(bytes).toString("hex"));

const bigEndian = (value: bigint) =>
  Uint8Array.from({ length: 16 }, (_, i) => Number((value >> BigInt(8 * (15 - i))) & 0xffn));

test("the 16-byte encoder matches @scure/base on edge cases", () => {
  same(new Uint8Array(16));
  same(new Uint8Array(16).fill(0xff));
  for (let zeros = 1; zeros <= 16; zeros++) {
    const bytes = randomBytes(16);
    bytes.fill(0, 0, zeros);
    if (zeros < 16 && bytes[zeros] === 0) bytes[zeros] = 1;
    same(bytes);
  }
  for (let bit = 0; bit < 128; bit++) same(bigEndian(1n << BigInt(bit)));
  // Where the digit count changes: 58^n and 58^n - 1.
  for (let n = 1n; 58n ** n < 1n << 128n; n++) {
    same(bigEndian(58n ** n));
    same(bigEndian(58n ** n - 1n));
  }
});

test("the 16-byte encoder matches @scure/base on random inputs", () => {
  const pool = randomBytes(16 * 100_000);
  for (let i = 0; i < 100_000; i++) same(pool.subarray(16 * i, 16 * i + 16));
});

test("the 16-byte encoder rejects other lengths", () => {
  assert.throws(() => base58Of16(new Uint8Array(15)), RangeError);
  assert.throws(() => base58Of16(new Uint8Array(32)), RangeError);
});

test("newId mints ids its pattern accepts", () => {
  for (let i = 0; i < 1000; i++) assert.match(newId("reservation"), idPattern("reservation"));
});

test("gateway key ids: gkid_ for new ones, the former gwk_ ids still match, a gwk_ secret does not", () => {
  assert.match(newId("gatewayKey"), /^gkid_/);
  assert.match(`gwk_${base58Of16(new Uint8Array(16).fill(7))}`, idPattern("gatewayKey"));
  assert.doesNotMatch(`gwk_${"A".repeat(43)}`, idPattern("gatewayKey"));
});
