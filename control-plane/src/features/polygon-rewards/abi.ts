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

/**
 * A delegator's reward movements (StakingInfo's events on mainnet, the ValidatorShare's on the devnet; the
 * same signatures, so they are read by topic, from any emitter): rewards paid out (a claim, the claim a
 * new delegation makes first, a restake's change), and the shares a restake buys with its rewards.
 */
export const delegatorClaimedRewardsEvent = parseAbiItem(
  "event DelegatorClaimedRewards(uint256 indexed validatorId, address indexed user, uint256 indexed rewards)",
);
export const shareMintedEvent = parseAbiItem(
  "event ShareMinted(uint256 indexed validatorId, address indexed user, uint256 indexed amount, uint256 tokens)",
);
export const delegatorRestakedEvent = parseAbiItem(
  "event DelegatorRestaked(uint256 indexed validatorId, address indexed user, uint256 indexed totalStaked)",
);
