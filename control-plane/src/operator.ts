/**
 * The control plane's published entry for the operator's tools (`@stake/control-plane/operator`): the
 * operator CLI, the demo seed of `npm start`, the benchmarks and env-example import this and nothing else
 * of the control plane's sources, so the features stay free to move their files.
 */
export { createPasswordHasher } from "./auth/password.ts";
export { ControlPlaneEnv } from "./config.ts";
export {
  type AccountOperatorService,
  createAccountOperatorService,
  type OrganisationStatus,
} from "./features/account-v2/operator-service.ts";
export { blsKeyFromSecret } from "./features/beacon-provisioning/bls.ts";
export { hexOf } from "./features/beacon-provisioning/builder.ts";
export { signingKeyPath } from "./features/beacon-provisioning/eip2333.ts";
export { createKeyCipher } from "./features/beacon-provisioning/key-encryption.ts";
export { encryptKeystore } from "./features/beacon-provisioning/keystore.ts";
export { createProvisioningRepo } from "./features/beacon-provisioning/repo.ts";
export {
  createGatewayOperatorService,
  type GatewayOperatorService,
  type ProviderRow,
  type ProviderStatus,
} from "./features/gateway-account/operator-service.ts";
export { checkParty, type LedgerDifference, partiesToCheck } from "./features/gateway-settlement/check.ts";
export { readBalance } from "./features/gateway-settlement/funding.ts";
export { scanRecords } from "./features/gateway-settlement/hot-repo.ts";
export { markAllPartiesDirty, runSettlementPass } from "./features/gateway-settlement/pass.ts";
export { rebuildPartyRedis } from "./features/gateway-settlement/rebuild.ts";
