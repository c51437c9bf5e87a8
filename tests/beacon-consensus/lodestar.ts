/**
 * What the consensus devnet's tests use from Lodestar, in one module they load with `await import()` after
 * setting LODESTAR_PRESET (see `loadLodestar`): Lodestar fixes its preset when `@lodestar/params` is first
 * evaluated, and in the test bundles (tests/bundle.ts) a package shared by several files sits in a chunk that
 * every static import evaluates before the importing file's own code, so only a dynamic import after the
 * setting is sure to come after it.
 */
import type { ChainForkConfig } from "@lodestar/config";
import { DOMAIN_DEPOSIT } from "@lodestar/params";
import { computeDomain, computeSigningRoot, type interopSecretKey } from "@lodestar/state-transition";
import { ssz } from "@lodestar/types";
import { type Address, encodeFunctionData, parseAbi, toHex } from "viem";
import { DEPOSIT_CONTRACT } from "../../devnet/beacon/contracts.ts";

export { type ApiClient, getClient } from "@lodestar/api";
export {
  DOMAIN_DEPOSIT,
  MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX,
  MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA,
  SLOTS_PER_EPOCH,
} from "@lodestar/params";
export {
  computeActivationExitEpoch,
  computeDomain,
  computeSigningRoot,
  interopSecretKey,
} from "@lodestar/state-transition";
export { ssz } from "@lodestar/types";
export { startConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";

const DEPOSIT_ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root) payable",
]);

/**
 * The deposit contract call that deposits `gwei` for `key`'s validator (a new one or a top-up), signed as
 * the deposit contract's checks and the state transition's want it (genesis fork version, zero root).
 */
export function depositCall(
  key: ReturnType<typeof interopSecretKey>,
  withdrawalCredentials: Uint8Array,
  gwei: number,
  config: ChainForkConfig,
) {
  const message = { pubkey: key.toPublicKey().toBytes(), withdrawalCredentials, amount: gwei };
  const domain = computeDomain(DOMAIN_DEPOSIT, config.GENESIS_FORK_VERSION, new Uint8Array(32));
  const signature = key.sign(computeSigningRoot(ssz.phase0.DepositMessage, message, domain)).toBytes();
  const root = ssz.phase0.DepositData.hashTreeRoot({ ...message, signature });
  return {
    to: DEPOSIT_CONTRACT as Address,
    data: encodeFunctionData({
      abi: DEPOSIT_ABI,
      functionName: "deposit",
      args: [toHex(message.pubkey), toHex(withdrawalCredentials), toHex(signature), toHex(root)],
    }),
    value: BigInt(gwei) * 1_000_000_000n,
  };
}
