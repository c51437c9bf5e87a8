import assert from "node:assert/strict";
import { test } from "node:test";
import { later, lifecycleOf, transitions } from "./lifecycle.ts";
import { apyPercent } from "./service.ts";

test("every beacon status maps to the spec's lifecycle status", () => {
  const map = {
    pending_initialized: "PENDING",
    pending_queued: "PENDING",
    active_ongoing: "ACTIVE",
    active_exiting: "EXIT_SENT",
    active_slashed: "EXIT_SENT",
    exited_unslashed: "EXITED",
    exited_slashed: "EXITED",
    withdrawal_possible: "EXITED",
    withdrawal_done: "WITHDRAWAL_DONE",
    something_new: "UNKNOWN",
  };
  for (const [beacon, lifecycle] of Object.entries(map)) assert.equal(lifecycleOf(beacon), lifecycle, beacon);
});

test("skipped statuses are filled in, EXIT_REQUESTED only when it was seen, CREATED never", () => {
  assert.deepEqual(transitions(null, "ACTIVE"), ["DEPOSITED", "PENDING", "ACTIVE"]);
  assert.deepEqual(transitions("ACTIVE", "EXITED"), ["EXIT_SENT", "EXITED"]);
  assert.deepEqual(transitions("ACTIVE", "EXIT_REQUESTED"), ["EXIT_REQUESTED"]);
  assert.deepEqual(transitions("EXIT_REQUESTED", "WITHDRAWAL_DONE"), [
    "EXIT_SENT",
    "EXITED",
    "WITHDRAWAL_DONE",
  ]);
  assert.deepEqual(transitions("ACTIVE", "UNKNOWN"), []);
  assert.equal(later("ACTIVE", "PENDING"), "ACTIVE");
  assert.equal(later("PENDING", "ACTIVE"), "ACTIVE");
  assert.equal(later(null, "DEPOSITED"), "DEPOSITED");
});

test("APY = rewards ÷ time-weighted stake, annualised, in integers", () => {
  // 32 ETH for one year of 384 s epochs earning 1 ETH: 3.125 %.
  const epochs = 31_557_600n / 384n;
  const stakeEpochs = 32_000_000_000n * epochs;
  const apy = apyPercent(1_000_000_000n, stakeEpochs, 384);
  assert.ok(Math.abs(apy - 3.125) < 0.001, String(apy));
  assert.equal(apyPercent(5n, 0n, 384), 0);
});
