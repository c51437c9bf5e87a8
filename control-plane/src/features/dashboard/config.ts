import { z } from "zod";

/** The dashboard's variables and its config (composed into the control plane's, `config.ts`). */
export const DashboardConfig = z
  .object({
    DASHBOARD_GATEWAY_URL: z
      .url()
      .default("http://127.0.0.1:8080")
      .describe("Public URL of the gateway, used in the dashboard's copy-and-paste curl of a paid request."),
    DASHBOARD_REFRESH_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(300)
      .default(5)
      .describe(
        "How often an open dashboard re-reads the balance (polling; each read counts against GATEWAY_ACCOUNT_RATE_LIMIT).",
      ),
  })
  .transform((e) => ({
    gatewayUrl: e.DASHBOARD_GATEWAY_URL.replace(/\/+$/, ""),
    refreshSeconds: e.DASHBOARD_REFRESH_SECONDS,
  }));

export type DashboardConfig = z.output<typeof DashboardConfig>;
