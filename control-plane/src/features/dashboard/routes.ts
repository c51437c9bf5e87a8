import { z } from "zod";
import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import type { DashboardService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);
const AssetParams = z.object({ file: z.string().regex(/^[\w.-]{1,100}$/, "Malformed asset name") });

/** The gateway account dashboard: a static page over the gateway account API, on the same origin. */
export function dashboardArea(deps: { service: DashboardService }): Area {
  const { service } = deps;
  return {
    tag: "Dashboard",
    present: presentStandard,
    routes: [
      route({
        method: "get",
        path: "/dashboard",
        summary: "The gateway account dashboard (HTML, strict Content-Security-Policy)",
        responses: { 200: { description: "HTML page" } },
        handler: async () => ({ status: 200, type: "html", ...(await service.page()) }),
      }),
      route({
        method: "get",
        path: "/dashboard/assets/{file}",
        summary: "The dashboard's scripts, styles and icon under content-hashed names (cached for a year)",
        params: AssetParams,
        responses: {
          200: { description: "the file" },
          404: error("no such asset"),
        },
        handler: async ({ params }) => ({ status: 200, ...(await service.asset(params.file)) }),
      }),
    ],
  };
}
