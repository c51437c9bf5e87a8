import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import { encodeBatchDepositCall, encodeDepositCall } from "../../chains/deposit-contract.ts";
import { bytesOf, GWEI_PER_ETH, hexOf, WEI_PER_GWEI } from "../../chains/evm.ts";
import { BuilderError } from "../../errors.ts";
import { type BlsKey, blsVerify } from "./bls.ts";
import { computeDepositDomain, computeSigningRoot, depositDataRoot, depositMessageRoot } from "./ssz.ts";

export const MIN_DEPOSIT_GWEI = 1n * GWEI_PER_ETH;
export const MIN_ACTIVATION_GWEI = 32n * GWEI_PER_ETH;
export const MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI = 2048n * GWEI_PER_ETH;

export interface SignedDeposit {
  pubkey: string;
  withdrawalCredentials: string;
  /** Gwei. */
  amount: bigint;
  signature: string;
  depositMessageRoot: string;
  depositDataRoot: string;
  forkVersion: string;
  networkName: string;
}

/**
 * Signs one deposit and checks it before anyone can store it: the signature must verify against the
 * recomputed signing root, and the data root is recomputed from the serialised fields. Pure: no I/O, no clock.
 */
export function buildDeposit(input: {
  key: BlsKey;
  withdrawalCredentials: Uint8Array;
  amountGwei: bigint;
  network: BeaconNetwork;
}): SignedDeposit {
  const { key, network } = input;
  if (input.amountGwei < MIN_DEPOSIT_GWEI)
    throw new BuilderError("deposit amount must be at least 1 ETH", "amount");
  const domain = computeDepositDomain(bytesOf(network.genesisForkVersion));
  const message = {
    pubkey: key.publicKey,
    withdrawalCredentials: input.withdrawalCredentials,
    amount: input.amountGwei,
  };
  const messageRoot = depositMessageRoot(message);
  const signature = key.sign(computeSigningRoot(messageRoot, domain));
  const deposit: SignedDeposit = {
    pubkey: hexOf(key.publicKey),
    withdrawalCredentials: hexOf(input.withdrawalCredentials),
    amount: input.amountGwei,
    signature: hexOf(signature),
    depositMessageRoot: hexOf(messageRoot),
    depositDataRoot: hexOf(depositDataRoot({ ...message, signature })),
    forkVersion: network.genesisForkVersion,
    networkName: network.name,
  };
  verifyDeposit(deposit, network);
  return deposit;
}

/** Recomputes both roots from the hex fields and verifies the BLS signature; throws on any mismatch. */
export function verifyDeposit(d: SignedDeposit, network: BeaconNetwork): void {
  const message = {
    pubkey: bytesOf(d.pubkey),
    withdrawalCredentials: bytesOf(d.withdrawalCredentials),
    amount: d.amount,
  };
  const messageRoot = depositMessageRoot(message);
  if (hexOf(messageRoot) !== d.depositMessageRoot) throw new Error("deposit_message_root mismatch");
  const signature = bytesOf(d.signature);
  if (hexOf(depositDataRoot({ ...message, signature })) !== d.depositDataRoot) {
    throw new Error("deposit_data_root mismatch");
  }
  const domain = computeDepositDomain(bytesOf(network.genesisForkVersion));
  if (!blsVerify(computeSigningRoot(messageRoot, domain), message.pubkey, signature)) {
    throw new Error("deposit signature does not verify");
  }
}

export interface DepositTx {
  to: string;
  /** Wei, decimal string (2048 ETH exceeds 2^53 wei). */
  value: string;
  data: string;
}

/** The deposit contract call for one validator (420 bytes of calldata). */
export function depositTx(d: SignedDeposit, network: BeaconNetwork): DepositTx {
  return {
    to: network.depositContract,
    value: (d.amount * WEI_PER_GWEI).toString(),
    data: encodeDepositCall(d),
  };
}

/** One batch-depositor call for 1–100 validators; `value` is the sum of the per-item amounts in wei. */
export function batchDepositTx(deposits: readonly SignedDeposit[], network: BeaconNetwork): DepositTx {
  if (deposits.length < 1 || deposits.length > 100)
    throw new BuilderError("batch takes 1 to 100 deposits", "validatorsCount");
  const wei = deposits.map((d) => d.amount * WEI_PER_GWEI);
  const data = encodeBatchDepositCall(deposits, wei);
  return { to: network.batchDepositor, value: wei.reduce((a, b) => a + b, 0n).toString(), data };
}
