import type { Core } from "../core.ts";
import { accountV1Area } from "../features/account-v1/routes.ts";
import { createAccountV1Service } from "../features/account-v1/service.ts";

export function composeArea(core: Core) {
  const service = createAccountV1Service({
    db: core.db,
    accounts: core.accountsRepo,
    passwords: core.passwords,
    limits: core.limits,
  });
  return { routes: [accountV1Area({ accounts: service })] };
}
