// SPDX-License-Identifier: MIT
pragma solidity ^0.8.0;

interface IDeposit {
    function deposit(bytes calldata, bytes calldata, bytes calldata, bytes32) external payable;
}

/// Devnet stand-in for Attestant's BatchValidatorDepositor: the same `deposit` ABI and checks (1 to 100
/// validators, lengths 48/32/96, msg.value == sum of the per-validator collateral in wei), forwarding each
/// deposit to the deposit contract, which recomputes every deposit_data_root.
contract BatchDepositor {
    IDeposit public immutable depositContract;

    constructor(address depositContract_) {
        depositContract = IDeposit(depositContract_);
    }

    function deposit(
        bytes[] calldata pubkeys,
        bytes[] calldata withdrawal_credentials,
        bytes[] calldata signatures,
        bytes32[] calldata deposit_data_roots,
        uint256[] calldata collateral
    ) external payable {
        uint256 n = pubkeys.length;
        require(n >= 1 && n <= 100, "BatchDepositor: 1 to 100 validators");
        require(
            withdrawal_credentials.length == n && signatures.length == n && deposit_data_roots.length == n
                && collateral.length == n,
            "BatchDepositor: length mismatch"
        );
        uint256 total;
        for (uint256 i = 0; i < n; i++) total += collateral[i];
        require(msg.value == total, "BatchDepositor: value is not the sum of the collateral");
        for (uint256 i = 0; i < n; i++) {
            require(pubkeys[i].length == 48, "BatchDepositor: pubkey length");
            require(withdrawal_credentials[i].length == 32, "BatchDepositor: credentials length");
            require(signatures[i].length == 96, "BatchDepositor: signature length");
            depositContract.deposit{value: collateral[i]}(
                pubkeys[i], withdrawal_credentials[i], signatures[i], deposit_data_roots[i]
            );
        }
    }
}
