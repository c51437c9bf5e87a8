import type { Core } from "../core.ts";
import { accountV2Area } from "../features/account-v2/routes.ts";

export function composeArea(core: Core) {
  return { routes: [accountV2Area({ accounts: core.accounts })] };
}
