import assert from "node:assert/strict";
import { test } from "node:test";
import type { z } from "zod";
import { ApiBlock, ApiValidator } from "../features/beacon-data/client.ts";
import { HyperliquidInfo } from "../features/hyperliquid-delegation/client.ts";
import { SolanaAnswers } from "../features/solana-stake/client.ts";
import { NodeAnswerRefused } from "../http/upstream.ts";
import {
  assertFitsBigintColumns,
  BIGINT_COLUMN_MAX,
  decimalAmount,
  decimalInt,
  decimalUint,
  hexBytes,
  nodeAnswer,
  nodeBigint,
  nodeNumber,
  U64_MAX,
} from "./node-values.ts";

const ok = (schema: z.ZodType, v: unknown) => schema.safeParse(v).success;

test("decimalUint: a non-negative decimal within a bigint column, nothing BigInt() would also take", () => {
  for (const v of ["0", "32000000000", BIGINT_COLUMN_MAX.toString()]) assert.ok(ok(decimalUint(), v), v);
  // BigInt() accepts every one of these; a node value must not.
  for (const v of [
    "-5",
    (2n ** 63n).toString(),
    "1e3",
    " 7",
    "0x10",
    "",
    "1.5",
    "+1",
    "99999999999999999999999",
  ])
    assert.ok(!ok(decimalUint(), v), JSON.stringify(v));
  assert.ok(ok(decimalUint(U64_MAX), U64_MAX.toString()));
  assert.ok(!ok(decimalUint(U64_MAX), (U64_MAX + 1n).toString()));
});

test("decimalInt: a signed decimal within a bigint column (a rewards endpoint's penalty), as a bigint", () => {
  const min = (-(2n ** 63n)).toString();
  for (const [v, n] of [
    ["0", 0n],
    ["-12345", -12345n],
    [BIGINT_COLUMN_MAX.toString(), BIGINT_COLUMN_MAX],
    [min, -(2n ** 63n)],
  ] as const)
    assert.equal(decimalInt().parse(v), n, v);
  for (const v of [
    "-0",
    "+5",
    "1e3",
    " 7",
    "0x10",
    "",
    "-",
    "1.5",
    "007",
    (2n ** 63n).toString(),
    `${min}1`,
    5,
  ])
    assert.ok(!ok(decimalInt(), v), JSON.stringify(v));
});

test("nodeBigint, nodeNumber, hexBytes and decimalAmount", () => {
  assert.equal(nodeBigint().parse("12"), 12n);
  assert.equal(nodeBigint().parse(12), 12n);
  assert.ok(!ok(nodeBigint(), -1));
  assert.ok(!ok(nodeBigint(), 1.5));
  assert.equal(nodeNumber().parse("700"), 700);
  assert.ok(!ok(nodeNumber(), (2n ** 53n).toString()), "a slot past 2^53 is not held as a JS number");
  assert.equal(hexBytes(20).parse(`0x${"AB".repeat(20)}`), `0x${"ab".repeat(20)}`);
  assert.ok(!ok(hexBytes(20), `0x${"ab".repeat(19)}`));
  assert.ok(!ok(hexBytes(), "0xabc"));
  assert.ok(ok(decimalAmount(), "12.50000000") && ok(decimalAmount(), "0"));
  for (const v of ["-1.5", "1e3", ".5", "1.", "NaN"]) assert.ok(!ok(decimalAmount(), v), v);
});

const validator = (balance: string) => ({
  index: "3",
  balance,
  status: "active_ongoing",
  validator: {
    pubkey: `0x${"aa".repeat(48)}`,
    withdrawal_credentials: `0x01${"00".repeat(11)}${"bb".repeat(20)}`,
    effective_balance: "32000000000",
    slashed: false,
  },
});

test("the Beacon API schemas refuse a negative balance, one past 2^63 and a malformed block", () => {
  assert.equal(ApiValidator.parse(validator("32000000001")).balance, "32000000001");
  const refused = (value: unknown, schema: z.ZodType = ApiValidator) =>
    assert.throws(
      () => nodeAnswer(schema, value, { node: "Beacon node", what: "validator" }),
      (e: unknown) =>
        e instanceof NodeAnswerRefused &&
        e.status === 502 &&
        e.message === "Beacon node answered a malformed validator" &&
        /balance|slot|fee_recipient/.test(String((e.cause as Error).message)),
    );
  refused(validator("-5"));
  refused(validator((2n ** 63n).toString()));
  const block = {
    message: {
      slot: "9",
      proposer_index: "1",
      body: {
        execution_payload: { fee_recipient: "0x12", block_number: "1", block_hash: "0x", timestamp: "1" },
      },
    },
  };
  refused(block, ApiBlock);
});

test("the other areas' answers: Hyperliquid amounts, Solana lamports", () => {
  assert.ok(
    !ok(HyperliquidInfo.delegatorSummary, { delegated: "-1", undelegated: "0", totalPendingWithdrawal: "0" }),
  );
  assert.ok(
    ok(HyperliquidInfo.delegatorSummary, { delegated: "1.5", undelegated: "0", totalPendingWithdrawal: "0" }),
  );
  assert.ok(!ok(SolanaAnswers.balance, { value: -5 }));
  // Past 2^53 JSON.parse has already rounded the number: it cannot be read exactly.
  assert.ok(!ok(SolanaAnswers.balance, { value: 2 ** 60 }));
  assert.ok(!ok(SolanaAnswers.inflationRewards, [{ amount: 1.5, postBalance: 3 }]));
});

test("assertFitsBigintColumns refuses a computed amount outside a signed bigint column, anywhere in the rows", () => {
  const rows = {
    epoch: 3,
    rewards: [{ clRewardGwei: -5n, elRewardGwei: BIGINT_COLUMN_MAX }],
    at: new Date(),
  };
  assertFitsBigintColumns(rows, { node: "Execution node", what: "epoch 3" });
  assert.throws(
    () =>
      assertFitsBigintColumns(
        { rewards: [{ clRewardGwei: 0n }, { elRewardGwei: BIGINT_COLUMN_MAX + 1n }] },
        { node: "Execution node", what: "epoch 3" },
      ),
    (e: unknown) =>
      e instanceof NodeAnswerRefused &&
      e.message === "Execution node answers give epoch 3 a value outside a bigint column" &&
      (e.cause as Error).message === `rewards[1].elRewardGwei: ${BIGINT_COLUMN_MAX + 1n}`,
  );
});
