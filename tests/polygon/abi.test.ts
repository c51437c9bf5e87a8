import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AbiFunction, toEventSelector, toFunctionSelector } from "viem";
import {
  newHeaderBlockEvent,
  stakeManagerAbi,
  validatorShareAbi,
} from "../../control-plane/src/features/polygon-rewards/abi.ts";
import { compileSolidity } from "../../devnet/evm/solc.ts";

/** Selectors and topic as published in docs/chains/polygon-sui.md §1.2 and §1.4. */
const PUBLISHED = {
  getLiquidRewards: "0x676e5550",
  getRewardPerShare: "0x1bf494a7",
  exchangeRate: "0x3ba0b9a9",
  validatorId: "0x5c5f7dae",
  getValidatorContract: "0x56342d8c",
};
const NEW_HEADER_BLOCK = "0xba5de06d22af2685c6c7765f60067f7d2b08c2d29f53cdf14d67f6d1c9bfb527";

describe("Polygon ABIs", () => {
  it("the area's typed ABIs have the public contracts' selectors, and the devnet's contracts implement them", () => {
    const compiled = compileSolidity(
      [new URL("../../devnet/polygon/contracts/PolygonStaking.sol", import.meta.url)],
      {
        StakeManager: "PolygonStaking.sol",
        ValidatorShare: "PolygonStaking.sol",
        RootChain: "PolygonStaking.sol",
      },
    );
    const selectors = (abi: unknown[]) =>
      new Set((abi as AbiFunction[]).filter((i) => i.type === "function").map((f) => toFunctionSelector(f)));
    const vs = selectors(compiled.ValidatorShare.abi);
    const sm = selectors(compiled.StakeManager.abi);
    for (const item of validatorShareAbi) {
      const selector = toFunctionSelector(item);
      assert.equal(selector, PUBLISHED[item.name], item.name);
      assert.ok(vs.has(selector), `devnet ValidatorShare implements ${item.name}`);
    }
    for (const item of stakeManagerAbi) {
      assert.equal(toFunctionSelector(item), PUBLISHED[item.name], item.name);
      assert.ok(sm.has(toFunctionSelector(item)), `devnet StakeManager implements ${item.name}`);
    }
    assert.equal(toEventSelector(newHeaderBlockEvent), NEW_HEADER_BLOCK);
    const rc = (compiled.RootChain.abi as { type: string; name: string }[]).find(
      (i) => i.type === "event" && i.name === "NewHeaderBlock",
    );
    assert.equal(toEventSelector(rc as never), NEW_HEADER_BLOCK);
  });
});
