/**
 * The control plane's published entry for the operator's tools (`@stake/control-plane/operator`): the
 * operator CLI, the demo seed of `npm start`, the benchmarks and env-example import this and nothing else
 * of the control plane's sources, so the features stay free to move their files.
 */
export { createPasswordHasher } from "./auth/password.ts";
export { ControlPlaneEnv, DEMO_ETH_KEY_ENCRYPTION_KEY } from "./config.ts";
export {
  type AccountOperatorService,
  createAccountOperatorService,
  type OrganisationStatus,
} from "./features/account-v2/operator-service.ts";
export { createKeystoreExport } from "./features/beacon-provisioning/keystore-export.ts";
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
export { createStatementsRepo } from "./features/statements/repo.ts";
export { listAudit } from "./platform/audit.ts";
export { CHAIN_AREA_NAMES, type ChainArea, describeIdentity } from "./platform/chain-identity/areas.ts";
export { reindexArea, reindexPlan } from "./platform/chain-identity/guard.ts";
