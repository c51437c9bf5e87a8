import { accountContext, type GatewayAccountDeps } from "./context.ts";
import { createGatewayHistoryService } from "./history-service.ts";
import { createGatewayCatalogService, createGatewayPartyService } from "./party-service.ts";
import { createGatewayUserKeyService } from "./user-keys-service.ts";
import { createGatewayUserService } from "./users-service.ts";

export type { GatewayAccountDeps } from "./context.ts";

/**
 * The gateway account API's service (docs/spec.md, "Gateway account"), one module per use case: users and
 * their party, their keys, the catalogue of providers and the coin rate, what the party holds and may
 * spend, and its history. The per-key budget and rotation are keys-service.ts.
 */
export function createGatewayAccountService(deps: GatewayAccountDeps) {
  const ctx = accountContext(deps);
  return {
    ...createGatewayUserService(deps, ctx),
    ...createGatewayUserKeyService(deps, ctx),
    ...createGatewayCatalogService(deps),
    ...createGatewayPartyService(deps, ctx),
    ...createGatewayHistoryService(deps, ctx),
  };
}

export type GatewayAccountService = ReturnType<typeof createGatewayAccountService>;
