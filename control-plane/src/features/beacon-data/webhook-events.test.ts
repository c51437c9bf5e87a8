import assert from "node:assert/strict";
import { test } from "node:test";
import type { EpochData } from "./epoch-rewards.ts";
import { type Before, fallingEpochs } from "./webhook-events.ts";

// validator.offline counts epochs of negative CL reward in a row: the run grows on each, a rise (or no
// reward row) ends it, so the event (fired when the run equals N) fires once per episode.
test("validator.offline: falling epochs grow on negative CL rewards and reset on anything else", () => {
  const epoch = (cl: bigint | null): EpochData =>
    ({
      epoch: 0,
      slots: [],
      rewards:
        cl === null
          ? []
          : [
              {
                validatorIndex: 7,
                balanceGwei: 0n,
                clRewardGwei: cl,
                elRewardGwei: 0n,
                mevRewardGwei: 0n,
                priorityFeeGwei: 0n,
              },
            ],
      validators: [
        {
          pubkey: "0xa",
          validatorIndex: 7,
          beaconStatus: "active_ongoing",
          lifecycle: "ACTIVE",
          withdrawalCredentials: null,
          feeRecipient: null,
          balanceGwei: 0n,
          statusEpochs: [],
        },
      ],
      history: [],
      transactions: [],
    }) as EpochData;
  let before = new Map<string, Before>();
  const runs: number[] = [];
  for (const cl of [-1n, -5n, -2n, -1n, 0n, -3n, null, 4n]) {
    const [n] = fallingEpochs(epoch(cl), before);
    runs.push(n as number);
    before = new Map([
      ["0xa", { beaconStatus: "active_ongoing", lifecycle: "ACTIVE", fallingEpochs: n as number }],
    ]);
  }
  assert.deepEqual(runs, [1, 2, 3, 4, 0, 1, 0, 0]);
  assert.equal(runs.filter((n) => n === 3).length, 1, "N = 3 is reached once in the episode");
});
