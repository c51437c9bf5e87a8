// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/*
 * The Polygon PoS staking views and reward arithmetic on L1, for the devnet (docs/chains/polygon-sui.md §1.2,
 * §1.4, §5). The functions the control plane reads keep the public contracts' names, selectors and
 * integer arithmetic (0xPolygon/pos-contracts: StakeManager.sol, ValidatorShare.sol, RootChain.sol):
 * the global rewardPerStake raised per checkpoint over the signed stake, the proposer bonus, validators
 * that did not sign skipped for that checkpoint, the delegators' part net of commission accrued in
 * `delegatorsReward`, and each ValidatorShare's `rewardPerShare` with `initalRewardPerShare[user]` reset by
 * every claim, restake and purchase. Left out: Heimdall signatures (the signers are given as validator
 * ids), unbonding, slashing, share transfers, the MATIC/POL migration and governance delays.
 */

/** A plain 18-decimal ERC-20 standing for POL. */
contract DevPOL {
    string public constant name = "Polygon Ecosystem Token";
    string public constant symbol = "POL";
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    address public immutable minter;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor() {
        minter = msg.sender;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == minter, "not minter");
        totalSupply += amount;
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
        return true;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= amount, "allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - amount;
        _move(from, to, amount);
        return true;
    }

    function _move(address from, address to, uint256 amount) private {
        require(balanceOf[from] >= amount, "balance");
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
    }
}

contract StakeManager {
    uint256 constant REWARD_PRECISION = 10 ** 25;
    uint256 constant INITIALIZED_AMOUNT = 1;
    uint256 constant MAX_COMMISION_RATE = 100;
    uint256 constant MAX_PROPOSER_BONUS = 100;
    uint256 constant CHK_REWARD_PRECISION = 100;

    enum Status {
        Inactive,
        Active,
        Locked,
        Unstaked
    }

    struct Validator {
        uint256 amount;
        uint256 reward;
        uint256 activationEpoch;
        uint256 deactivationEpoch;
        uint256 jailTime;
        address signer;
        address contractAddress;
        Status status;
        uint256 commissionRate;
        uint256 lastCommissionUpdate;
        uint256 delegatorsReward;
        uint256 delegatedAmount;
        uint256 initialRewardPerStake;
    }

    DevPOL public immutable token;
    address public immutable owner;
    address public rootChain;

    mapping(uint256 => Validator) public validators;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public signerToValidator;
    /** The active set in signing order (the real contract keeps signer addresses sorted). */
    uint256[] public validatorIds;

    uint256 public CHECKPOINT_REWARD;
    uint256 public checkPointBlockInterval = 1024;
    uint256 public maxRewardedCheckpoints = 3;
    uint256 public rewardDecreasePerCheckpoint;
    uint256 public proposerBonus = 10;
    uint256 public rewardPerStake;
    uint256 public currentEpoch = 1;
    uint256 public NFTCounter;
    uint256 public totalStaked;
    /** validatorState.amount of the real contract: validators' own stake plus delegations. */
    uint256 public currentValidatorSetTotalStake;

    event RewardUpdate(uint256 newReward, uint256 oldReward);
    event UpdateCommissionRate(uint256 indexed validatorId, uint256 indexed newCommissionRate, uint256 indexed oldCommissionRate);

    constructor(DevPOL _token, uint256 checkpointReward, uint256 firstValidatorId) {
        token = _token;
        owner = msg.sender;
        CHECKPOINT_REWARD = checkpointReward;
        NFTCounter = firstValidatorId;
    }

    modifier onlyOwner() {
        require(msg.sender == owner, "not owner");
        _;
    }

    modifier onlyDelegation(uint256 validatorId) {
        require(validators[validatorId].contractAddress == msg.sender, "Invalid contract address");
        _;
    }

    function setRootChain(address _rootChain) external onlyOwner {
        require(rootChain == address(0), "set");
        rootChain = _rootChain;
    }

    function updateCheckpointReward(uint256 newReward) external onlyOwner {
        require(newReward != 0);
        emit RewardUpdate(newReward, CHECKPOINT_REWARD);
        CHECKPOINT_REWARD = newReward;
    }

    /** Views the control plane and the tests read. */
    function epoch() external view returns (uint256) {
        return currentEpoch;
    }

    function getValidatorContract(uint256 validatorId) external view returns (address) {
        return validators[validatorId].contractAddress;
    }

    function validatorStake(uint256 validatorId) external view returns (uint256) {
        return validators[validatorId].amount;
    }

    function delegatedAmount(uint256 validatorId) external view returns (uint256) {
        return validators[validatorId].delegatedAmount;
    }

    function delegatorsReward(uint256 validatorId) external view returns (uint256) {
        uint256 pending;
        if (validators[validatorId].deactivationEpoch == 0) {
            (, pending) = _evaluateValidatorAndDelegationReward(validatorId);
        }
        return validators[validatorId].delegatorsReward + pending - INITIALIZED_AMOUNT;
    }

    function validatorReward(uint256 validatorId) external view returns (uint256) {
        uint256 pending;
        if (validators[validatorId].deactivationEpoch == 0) {
            (pending, ) = _evaluateValidatorAndDelegationReward(validatorId);
        }
        return validators[validatorId].reward + pending - INITIALIZED_AMOUNT;
    }

    /** A validator with its own stake; with delegation, its ValidatorShare is created. */
    function stakeFor(address user, uint256 amount, bool acceptDelegation) external returns (uint256 validatorId) {
        require(amount > 0, "not enough deposit");
        require(signerToValidator[user] == 0, "Invalid signer");
        require(token.transferFrom(msg.sender, address(this), amount), "transfer from failed");
        validatorId = NFTCounter++;
        validators[validatorId] = Validator({
            amount: amount,
            reward: INITIALIZED_AMOUNT,
            activationEpoch: currentEpoch,
            deactivationEpoch: 0,
            jailTime: 0,
            signer: user,
            contractAddress: acceptDelegation ? address(new ValidatorShare(validatorId, this)) : address(0),
            status: Status.Active,
            commissionRate: 0,
            lastCommissionUpdate: 0,
            delegatorsReward: INITIALIZED_AMOUNT,
            delegatedAmount: 0,
            initialRewardPerStake: rewardPerStake
        });
        ownerOf[validatorId] = user;
        signerToValidator[user] = validatorId;
        validatorIds.push(validatorId);
        totalStaked += amount;
        currentValidatorSetTotalStake += amount;
    }

    function updateCommissionRate(uint256 validatorId, uint256 newCommissionRate) external {
        require(ownerOf[validatorId] == msg.sender, "not staker");
        require(newCommissionRate <= MAX_COMMISION_RATE, "Incorrect value");
        // Rewards so far are split at the old rate before the new one applies.
        _updateRewards(validatorId);
        emit UpdateCommissionRate(validatorId, newCommissionRate, validators[validatorId].commissionRate);
        validators[validatorId].commissionRate = newCommissionRate;
        validators[validatorId].lastCommissionUpdate = currentEpoch;
    }

    /** Called by RootChain for each checkpoint; the signers are validator ids in increasing order. */
    function checkSignatures(
        uint256 blockInterval,
        uint256 proposerId,
        uint256[] calldata signerIds
    ) external returns (uint256) {
        require(msg.sender == rootChain, "not root chain");
        uint256 signedStakePower;
        uint256 last;
        for (uint256 i = 0; i < signerIds.length; ++i) {
            uint256 id = signerIds[i];
            require(id > last, "signers out of order");
            last = id;
            Validator storage v = validators[id];
            require(v.status == Status.Active && v.amount > 0, "not a validator");
            signedStakePower += v.delegatedAmount + v.amount;
        }
        uint256[] memory unsigned = new uint256[](validatorIds.length);
        uint256 unsignedCount;
        for (uint256 i = 0; i < validatorIds.length; ++i) {
            bool signed;
            for (uint256 j = 0; j < signerIds.length; ++j) if (signerIds[j] == validatorIds[i]) signed = true;
            if (!signed) unsigned[unsignedCount++] = validatorIds[i];
        }
        return _increaseRewardAndAssertConsensus(blockInterval, proposerId, signedStakePower, unsigned, unsignedCount);
    }

    function withdrawDelegatorsReward(uint256 validatorId) external onlyDelegation(validatorId) returns (uint256) {
        _updateRewards(validatorId);
        uint256 totalReward = validators[validatorId].delegatorsReward - INITIALIZED_AMOUNT;
        validators[validatorId].delegatorsReward = INITIALIZED_AMOUNT;
        return totalReward;
    }

    function updateValidatorState(uint256 validatorId, int256 amount) external onlyDelegation(validatorId) {
        if (amount >= 0) {
            currentValidatorSetTotalStake += uint256(amount);
            validators[validatorId].delegatedAmount += uint256(amount);
        } else {
            currentValidatorSetTotalStake -= uint256(-amount);
            validators[validatorId].delegatedAmount -= uint256(-amount);
        }
    }

    function delegationDeposit(uint256 validatorId, uint256 amount, address delegator)
        external
        onlyDelegation(validatorId)
        returns (bool)
    {
        return token.transferFrom(delegator, address(this), amount);
    }

    function transferFunds(uint256 validatorId, uint256 amount, address delegator)
        external
        onlyDelegation(validatorId)
        returns (bool)
    {
        return token.transfer(delegator, amount);
    }

    function _calculateCheckpointReward(uint256 blockInterval, uint256 signedStakePower, uint256 currentTotalStake)
        internal
        view
        returns (uint256)
    {
        uint256 targetBlockInterval = checkPointBlockInterval;
        uint256 ckpReward = CHECKPOINT_REWARD;
        uint256 fullIntervals = blockInterval / targetBlockInterval;
        if (fullIntervals > maxRewardedCheckpoints) fullIntervals = maxRewardedCheckpoints;
        uint256 reward;
        if (blockInterval > targetBlockInterval) {
            uint256 decrease = rewardDecreasePerCheckpoint;
            reward =
                ckpReward * fullIntervals -
                (ckpReward * (((fullIntervals - 1) * fullIntervals) / 2) * decrease) / CHK_REWARD_PRECISION;
            blockInterval -= fullIntervals * targetBlockInterval;
            ckpReward -= (ckpReward * fullIntervals * decrease) / CHK_REWARD_PRECISION;
        }
        reward += (blockInterval * ckpReward) / targetBlockInterval;
        return (reward * signedStakePower) / currentTotalStake;
    }

    function _increaseRewardAndAssertConsensus(
        uint256 blockInterval,
        uint256 proposerId,
        uint256 signedStakePower,
        uint256[] memory unsigned,
        uint256 unsignedCount
    ) private returns (uint256) {
        uint256 currentTotalStake = currentValidatorSetTotalStake;
        require(signedStakePower >= (currentTotalStake * 2) / 3 + 1, "2/3+1 non-majority!");
        uint256 reward = _calculateCheckpointReward(blockInterval, signedStakePower, currentTotalStake);
        uint256 bonus = (reward * proposerBonus) / MAX_PROPOSER_BONUS;
        validators[proposerId].reward += bonus;
        uint256 newRewardPerStake = rewardPerStake + ((reward - bonus) * REWARD_PRECISION) / signedStakePower;
        // Validators that did not sign are settled at the old rate and moved past this checkpoint.
        uint256 current = rewardPerStake;
        for (uint256 i = 0; i < unsignedCount; ++i) _updateRewardsAndCommit(unsigned[i], current, newRewardPerStake);
        rewardPerStake = newRewardPerStake;
        currentEpoch += 1;
        return reward;
    }

    function _updateRewardsAndCommit(uint256 validatorId, uint256 currentRewardPerStake, uint256 newRewardPerStake)
        private
    {
        Validator storage v = validators[validatorId];
        if (v.deactivationEpoch != 0 && currentEpoch >= v.deactivationEpoch) return;
        uint256 initialRewardPerStake = v.initialRewardPerStake;
        if (initialRewardPerStake < currentRewardPerStake) {
            uint256 own = v.amount;
            uint256 delegated = v.delegatedAmount;
            if (delegated > 0) {
                uint256 combined = own + delegated;
                _increaseValidatorRewardWithDelegation(
                    validatorId,
                    own,
                    delegated,
                    _eligible(combined, currentRewardPerStake, initialRewardPerStake)
                );
            } else {
                v.reward += _eligible(own, currentRewardPerStake, initialRewardPerStake);
            }
        }
        if (newRewardPerStake > initialRewardPerStake) v.initialRewardPerStake = newRewardPerStake;
    }

    function _updateRewards(uint256 validatorId) private {
        _updateRewardsAndCommit(validatorId, rewardPerStake, rewardPerStake);
    }

    function _eligible(uint256 stakePower, uint256 currentRewardPerStake, uint256 initialRewardPerStake)
        private
        pure
        returns (uint256)
    {
        return ((currentRewardPerStake - initialRewardPerStake) * stakePower) / REWARD_PRECISION;
    }

    function _increaseValidatorRewardWithDelegation(
        uint256 validatorId,
        uint256 own,
        uint256 delegated,
        uint256 reward
    ) private {
        (uint256 valReward, uint256 delReward) = _getValidatorAndDelegationReward(validatorId, own, reward, delegated + own);
        validators[validatorId].delegatorsReward += delReward;
        validators[validatorId].reward += valReward;
    }

    function _getValidatorAndDelegationReward(
        uint256 validatorId,
        uint256 own,
        uint256 reward,
        uint256 combined
    ) internal view returns (uint256, uint256) {
        if (combined == 0) return (0, 0);
        uint256 valReward = (own * reward) / combined;
        uint256 commissionRate = validators[validatorId].commissionRate;
        if (commissionRate > 0) valReward += ((reward - valReward) * commissionRate) / MAX_COMMISION_RATE;
        return (valReward, reward - valReward);
    }

    function _evaluateValidatorAndDelegationReward(uint256 validatorId)
        private
        view
        returns (uint256 valReward, uint256 delReward)
    {
        Validator storage v = validators[validatorId];
        uint256 combined = v.amount + v.delegatedAmount;
        uint256 eligibleReward = rewardPerStake - v.initialRewardPerStake;
        return _getValidatorAndDelegationReward(validatorId, v.amount, (eligibleReward * combined) / REWARD_PRECISION, combined);
    }
}

contract ValidatorShare {
    uint256 constant EXCHANGE_RATE_PRECISION = 100;
    uint256 constant EXCHANGE_RATE_HIGH_PRECISION = 10 ** 29;
    uint256 constant REWARD_PRECISION = 10 ** 25;

    StakeManager public immutable stakeManager;
    uint256 public immutable validatorId;
    uint256 public rewardPerShare;
    uint256 public activeAmount;
    mapping(address => uint256) public initalRewardPerShare;

    /** Shares (18 decimals); transfers are not simulated. */
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event ShareMinted(uint256 indexed validatorId, address indexed user, uint256 indexed amount, uint256 tokens);
    event DelegatorClaimedRewards(uint256 indexed validatorId, address indexed user, uint256 indexed rewards);
    event DelegatorRestaked(uint256 indexed validatorId, address indexed user, uint256 indexed totalStaked);

    constructor(uint256 _validatorId, StakeManager _stakeManager) {
        validatorId = _validatorId;
        stakeManager = _stakeManager;
    }

    function exchangeRate() public view returns (uint256) {
        uint256 totalShares = totalSupply;
        uint256 precision = _getRatePrecision();
        return totalShares == 0 ? precision : (stakeManager.delegatedAmount(validatorId) * precision) / totalShares;
    }

    function getTotalStake(address user) public view returns (uint256, uint256) {
        uint256 shares = balanceOf[user];
        uint256 rate = exchangeRate();
        if (shares == 0) return (0, rate);
        return ((rate * shares) / _getRatePrecision(), rate);
    }

    function getLiquidRewards(address user) public view returns (uint256) {
        return _calculateReward(user, getRewardPerShare());
    }

    function getRewardPerShare() public view returns (uint256) {
        return _calculateRewardPerShareWithRewards(stakeManager.delegatorsReward(validatorId));
    }

    function getStakeAndRewards(address user) external view returns (uint256, uint256) {
        (uint256 stake, ) = getTotalStake(user);
        return (stake, getLiquidRewards(user));
    }

    function buyVoucherPOL(uint256 _amount, uint256 _minSharesToMint) public returns (uint256 amountToDeposit) {
        _withdrawAndTransferReward(msg.sender);
        amountToDeposit = _buyShares(_amount, _minSharesToMint, msg.sender);
        require(stakeManager.delegationDeposit(validatorId, amountToDeposit, msg.sender), "deposit failed");
    }

    function buyVoucher(uint256 _amount, uint256 _minSharesToMint) external returns (uint256) {
        return buyVoucherPOL(_amount, _minSharesToMint);
    }

    function restakePOL() public returns (uint256 amountRestaked, uint256 liquidReward) {
        address user = msg.sender;
        liquidReward = _withdrawReward(user);
        if (liquidReward != 0) {
            amountRestaked = _buyShares(liquidReward, 0, user);
            if (liquidReward > amountRestaked) {
                // The change that does not buy a whole share is paid out.
                require(stakeManager.transferFunds(validatorId, liquidReward - amountRestaked, user), "Insufficent rewards");
                emit DelegatorClaimedRewards(validatorId, user, liquidReward - amountRestaked);
            }
            (uint256 totalStaked, ) = getTotalStake(user);
            emit DelegatorRestaked(validatorId, user, totalStaked);
        }
    }

    function restake() external returns (uint256, uint256) {
        return restakePOL();
    }

    function withdrawRewardsPOL() public {
        _withdrawAndTransferReward(msg.sender);
    }

    function withdrawRewards() external {
        withdrawRewardsPOL();
    }

    function _getRatePrecision() private view returns (uint256) {
        return validatorId < 8 ? EXCHANGE_RATE_PRECISION : EXCHANGE_RATE_HIGH_PRECISION;
    }

    function _calculateRewardPerShareWithRewards(uint256 accumulatedReward) private view returns (uint256) {
        uint256 _rewardPerShare = rewardPerShare;
        if (accumulatedReward != 0) {
            uint256 totalShares = totalSupply;
            if (totalShares != 0) _rewardPerShare += (accumulatedReward * REWARD_PRECISION) / totalShares;
        }
        return _rewardPerShare;
    }

    function _calculateReward(address user, uint256 _rewardPerShare) private view returns (uint256) {
        uint256 shares = balanceOf[user];
        if (shares == 0) return 0;
        uint256 initial = initalRewardPerShare[user];
        if (initial == _rewardPerShare) return 0;
        return ((_rewardPerShare - initial) * shares) / REWARD_PRECISION;
    }

    function _withdrawReward(address user) private returns (uint256) {
        uint256 _rewardPerShare = _calculateRewardPerShareWithRewards(stakeManager.withdrawDelegatorsReward(validatorId));
        uint256 liquidRewards = _calculateReward(user, _rewardPerShare);
        rewardPerShare = _rewardPerShare;
        initalRewardPerShare[user] = _rewardPerShare;
        return liquidRewards;
    }

    function _withdrawAndTransferReward(address user) private returns (uint256) {
        uint256 liquidRewards = _withdrawReward(user);
        if (liquidRewards != 0) {
            require(stakeManager.transferFunds(validatorId, liquidRewards, user), "Insufficent rewards");
            emit DelegatorClaimedRewards(validatorId, user, liquidRewards);
        }
        return liquidRewards;
    }

    function _buyShares(uint256 _amount, uint256 _minSharesToMint, address user) private returns (uint256) {
        uint256 rate = exchangeRate();
        uint256 precision = _getRatePrecision();
        uint256 shares = (_amount * precision) / rate;
        require(shares >= _minSharesToMint, "Too much slippage");
        totalSupply += shares;
        balanceOf[user] += shares;
        emit Transfer(address(0), user, shares);
        // Only the tokens the whole shares are worth are taken.
        _amount = (rate * shares) / precision;
        stakeManager.updateValidatorState(validatorId, int256(_amount));
        activeAmount += _amount;
        emit ShareMinted(validatorId, user, _amount, shares);
        return _amount;
    }
}

contract RootChain {
    uint256 constant MAX_DEPOSITS = 10000;

    StakeManager public immutable stakeManager;
    uint256 public _nextHeaderBlock = MAX_DEPOSITS;
    /** Last Bor block covered by a checkpoint. */
    uint256 public lastChildBlock;

    event NewHeaderBlock(
        address indexed proposer,
        uint256 indexed headerBlockId,
        uint256 indexed reward,
        uint256 start,
        uint256 end,
        bytes32 root
    );

    constructor(StakeManager _stakeManager) {
        stakeManager = _stakeManager;
    }

    function currentHeaderBlock() external view returns (uint256) {
        return _nextHeaderBlock - MAX_DEPOSITS;
    }

    /** One checkpoint of Bor blocks up to `end`, signed by `signerIds` (increasing validator ids). */
    function submitCheckpoint(uint256 proposerId, uint256 end, bytes32 root, uint256[] calldata signerIds) external {
        uint256 start = _nextHeaderBlock == MAX_DEPOSITS ? 0 : lastChildBlock + 1;
        require(end >= start, "INCORRECT_HEADER_DATA");
        uint256 reward = stakeManager.checkSignatures(end - start + 1, proposerId, signerIds);
        // The devnet's validators sign with their owner address.
        emit NewHeaderBlock(stakeManager.ownerOf(proposerId), _nextHeaderBlock, reward, start, end, root);
        _nextHeaderBlock += MAX_DEPOSITS;
        lastChildBlock = end;
    }
}
