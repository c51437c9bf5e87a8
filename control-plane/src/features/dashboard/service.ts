import { createPageBundle } from "../../http/page-bundle.ts";
import type { DashboardConfig } from "./config.ts";

/** The dashboard: one HTML shell over the hashed bundle, its settings in data attributes (no inline script). */
export function createDashboardService(config: DashboardConfig) {
  const bundle = createPageBundle("dashboard", {
    title: "Gateway account",
    noscript: "The gateway account dashboard needs JavaScript.",
  });
  return {
    page: () => bundle.page({ "gateway-url": config.gatewayUrl, "refresh-seconds": config.refreshSeconds }),
    asset: (name: string) => bundle.asset(name),
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
