import type { Core } from "../core.ts";
import { dashboardArea } from "../features/dashboard/routes.ts";
import { createDashboardService } from "../features/dashboard/service.ts";

export function composeArea({ config }: Core) {
  return { routes: [dashboardArea({ service: createDashboardService(config.dashboard) })] };
}
