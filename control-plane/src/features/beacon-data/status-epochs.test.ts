import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApiValidator } from "./client.ts";
import { statusEpochsOf } from "./status-epochs.ts";

const FAR = (2n ** 64n - 1n).toString();
const PUBKEY = `0x${"ab".repeat(48)}`;
const validator = (
  status: string,
  epochs: Partial<Record<string, string>>,
  slashed = false,
): ApiValidator => ({
  index: "70",
  balance: "32000000000",
  status,
  validator: {
    pubkey: PUBKEY.toUpperCase().replace("0X", "0x"),
    withdrawal_credentials: `0x01${"00".repeat(31)}`,
    effective_balance: "32000000000",
    slashed,
    activation_eligibility_epoch: FAR,
    activation_epoch: FAR,
    exit_epoch: FAR,
    withdrawable_epoch: FAR,
    ...epochs,
  },
});
const walk = (v: ApiValidator, read: number) => statusEpochsOf(v, read).map((s) => [s.status, s.epoch]);

test("statuses with a state field take its epoch; the others the epoch read in, null when passed unseen", () => {
  assert.deepEqual(walk(validator("pending_initialized", {}), 3), [["pending_initialized", 3]]);
  assert.deepEqual(walk(validator("pending_queued", { activation_eligibility_epoch: "5" }), 5), [
    ["pending_initialized", null],
    ["pending_queued", 5],
  ]);
  // Scheduled but not yet reached: the activation epoch is in the future, the status still pending_queued.
  assert.deepEqual(
    walk(validator("pending_queued", { activation_eligibility_epoch: "5", activation_epoch: "11" }), 8).at(
      -1,
    ),
    ["pending_queued", 5],
  );
  const exiting = { activation_eligibility_epoch: "5", activation_epoch: "11", exit_epoch: "20" };
  assert.deepEqual(walk(validator("active_exiting", { ...exiting, withdrawable_epoch: "22" }), 16), [
    ["pending_initialized", null],
    ["pending_queued", 5],
    ["active_ongoing", 11],
    ["active_exiting", 16],
  ]);
  const done = { ...exiting, withdrawable_epoch: "22" };
  assert.deepEqual(walk(validator("withdrawal_done", done), 23).slice(3), [
    ["active_exiting", null],
    ["exited_unslashed", 20],
    ["withdrawal_possible", 22],
    ["withdrawal_done", 23],
  ]);
  assert.ok(statusEpochsOf(validator("withdrawal_done", done), 23).every((s) => s.pubkey === PUBKEY));
});

test("a slashed validator walks the slashed branch; genesis validators and unknown statuses", () => {
  const slashed = {
    activation_eligibility_epoch: "0",
    activation_epoch: "0",
    exit_epoch: "9",
    withdrawable_epoch: "40",
  };
  assert.deepEqual(walk(validator("active_slashed", slashed, true), 4).slice(1), [
    ["pending_queued", 0],
    ["active_ongoing", 0],
    ["active_slashed", 4],
  ]);
  assert.deepEqual(walk(validator("withdrawal_possible", slashed, true), 41).slice(3), [
    ["active_slashed", null],
    ["exited_slashed", 9],
    ["withdrawal_possible", 40],
  ]);
  assert.deepEqual(walk(validator("something_new", {}), 1), []);
});
