import assert from "node:assert/strict";
import { test } from "node:test";
import {
  consolidationRequestTx,
  decodeConsolidationRequestLog,
  decodeWithdrawalRequestLog,
  withdrawalRequestTx,
} from "./el-requests.ts";

const from = "0x00000000219ab540356cbb839cbe05303d7705fa";
const a = `0x${"a1".repeat(48)}`;
const b = `0x${"b2".repeat(48)}`;

// The contracts log the sender ahead of the calldata (EIP-7002 and EIP-7251, "Add request" events).
const logOf = (tx: { from: string; data: string }) => `0x${tx.from.slice(2)}${tx.data.slice(2)}`;

test("EIP-7002: what the builder encodes, the log decoder reads back", () => {
  const tx = withdrawalRequestTx({ from, pubkey: a, amountGwei: 1_500_000_000n, feeWei: 1n });
  assert.deepEqual(decodeWithdrawalRequestLog(logOf(tx)), {
    sourceAddress: from,
    pubkey: a,
    amountGwei: 1_500_000_000n,
  });
  assert.equal(decodeWithdrawalRequestLog(`${logOf(tx)}00`), null);
});

test("EIP-7251: what the builder encodes, the log decoder reads back", () => {
  const tx = consolidationRequestTx({ from, source: a, target: b, feeWei: 1n });
  assert.deepEqual(decodeConsolidationRequestLog(logOf(tx)), { sourceAddress: from, source: a, target: b });
  assert.equal(decodeConsolidationRequestLog(logOf(tx).slice(0, -2)), null);
});
