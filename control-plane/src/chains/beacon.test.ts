import assert from "node:assert/strict";
import { test } from "node:test";
import { blsPubkey, withdrawalAddressOf } from "./beacon.ts";

test("BLS public keys: with or without 0x, handed on as 0x + lower-case hex", () => {
  const body = "AB".repeat(48);
  assert.equal(blsPubkey().parse(body), `0x${body.toLowerCase()}`);
  assert.equal(blsPubkey().parse(`0x${body}`), `0x${body.toLowerCase()}`);
  assert.equal(blsPubkey().safeParse("0x1234").success, false);
});

test("withdrawal address of 0x01 / 0x02 credentials; none for 0x00", () => {
  const tail = "219ab540356cbb839cbe05303d7705fa";
  assert.equal(withdrawalAddressOf(`0x01${"00".repeat(15)}${tail}`), `0x00000000${tail}`);
  assert.equal(withdrawalAddressOf(`0x02${"00".repeat(15)}${tail.toUpperCase()}`), `0x00000000${tail}`);
  assert.equal(withdrawalAddressOf(`0x00${"ab".repeat(31)}`), null);
});
