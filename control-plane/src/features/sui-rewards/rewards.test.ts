import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateTable, rewardRows, type StakePosition } from "./rewards.ts";

// Hand-computed vector: pool active from epoch 10 (empty rate), no rate for 13 (safe mode).
const table = new RateTable([
  { epoch: 10, rate: { suiAmount: 0n, poolTokenAmount: 0n } },
  { epoch: 11, rate: { suiAmount: 1000n, poolTokenAmount: 1000n } },
  { epoch: 12, rate: { suiAmount: 1100n, poolTokenAmount: 1000n } },
  { epoch: 14, rate: { suiAmount: 1300n, poolTokenAmount: 997n } },
]);
const tables = new Map([["p", table]]);

describe("Sui rewards arithmetic (floors of staking_pool.move)", () => {
  it("rate lookup: latest entry at or before the epoch, empty before the first", () => {
    assert.deepEqual(table.at(9), { suiAmount: 0n, poolTokenAmount: 0n });
    assert.deepEqual(table.at(13), { suiAmount: 1100n, poolTokenAmount: 1000n });
    assert.deepEqual(table.at(99), { suiAmount: 1300n, poolTokenAmount: 997n });
  });

  it("one stake: floors, a safe-mode gap, cumulative totals", () => {
    // tok = 333; V(12) = floor(333·1100/1000) = 366; V(13) = V(12); V(14) = floor(333·1300/997) = 434.
    const stake: StakePosition = { poolId: "p", principal: 333n, activationEpoch: 11, unstakeEpoch: null };
    assert.deepEqual(rewardRows([stake], tables, [10, 11, 12, 13]), [
      { epoch: 10, principal: 0n, epochReward: 0n, totalRewards: 0n },
      { epoch: 11, principal: 333n, epochReward: 33n, totalRewards: 33n },
      { epoch: 12, principal: 333n, epochReward: 0n, totalRewards: 33n },
      { epoch: 13, principal: 333n, epochReward: 68n, totalRewards: 101n },
    ]);
  });

  it("two stakes: the second's tokens are floored (value below principal earns 0), withdrawn in 14", () => {
    // tok = floor(500·1000/1100) = 454; V(13) = 499 → C = 0; V(14) = floor(454·1300/997) = 591 → C = 91.
    const stakes: StakePosition[] = [
      { poolId: "p", principal: 333n, activationEpoch: 11, unstakeEpoch: null },
      { poolId: "p", principal: 500n, activationEpoch: 12, unstakeEpoch: 14 },
    ];
    assert.deepEqual(rewardRows(stakes, tables, [12, 13, 14]), [
      { epoch: 12, principal: 833n, epochReward: 0n, totalRewards: 33n },
      { epoch: 13, principal: 833n, epochReward: 159n, totalRewards: 192n },
      { epoch: 14, principal: 333n, epochReward: 0n, totalRewards: 192n },
    ]);
  });

  it("a stake withdrawn before it activated (UnstakingRequestEvent, reward 0) counts nowhere", () => {
    // Requested in 11 for activation in 12, withdrawn while still pending in 11.
    const stakes: StakePosition[] = [
      { poolId: "p", principal: 333n, activationEpoch: 11, unstakeEpoch: null },
      { poolId: "p", principal: 2_000_000_000_000n, activationEpoch: 12, unstakeEpoch: 11 },
    ];
    assert.deepEqual(rewardRows(stakes, tables, [11, 12]), [
      { epoch: 11, principal: 333n, epochReward: 33n, totalRewards: 33n },
      { epoch: 12, principal: 333n, epochReward: 0n, totalRewards: 33n },
    ]);
  });
});
