/**
 * What the consensus devnet's tests use from Lodestar, in one module they load with `await import()` after
 * setting LODESTAR_PRESET (see `loadLodestar`): Lodestar fixes its preset when `@lodestar/params` is first
 * evaluated, and in the test bundles (tests/bundle.ts) a package shared by several files sits in a chunk that
 * every static import evaluates before the importing file's own code, so only a dynamic import after the
 * setting is sure to come after it.
 */
export { type ApiClient, getClient } from "@lodestar/api";
export {
  DOMAIN_DEPOSIT,
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
