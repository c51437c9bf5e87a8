import { parseAbi, parseAbiItem } from "viem";

/**
 * The L1 views the area reads, typed for viem (selectors in docs/chains/polygon-sui.md §1.2, checked in
 * tests/polygon against the devnet's compiled contracts).
 */
export const validatorShareAbi = parseAbi([
  "function getLiquidRewards(address user) view returns (uint256)",
  "function getRewardPerShare() view returns (uint256)",
  "function exchangeRate() view returns (uint256)",
  "function validatorId() view returns (uint256)",
]);

export const stakeManagerAbi = parseAbi([
  "function getValidatorContract(uint256 validatorId) view returns (address)",
]);

/** Emitted by RootChainProxy once per checkpoint (docs/chains/polygon-sui.md §1.4). */
export const newHeaderBlockEvent = parseAbiItem(
  "event NewHeaderBlock(address indexed proposer, uint256 indexed headerBlockId, uint256 indexed reward, uint256 start, uint256 end, bytes32 root)",
);
