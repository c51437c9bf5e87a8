import { z } from "zod";
import { presentStandard } from "../errors.ts";
import { DOCS_HEADERS, DOCS_INIT, DOCS_PAGE } from "../openapi.ts";
import { type Area, errorResponses, route } from "./route.ts";

const Status = z.object({ status: z.literal("ok") });
const error = errorResponses(presentStandard.body);
const Readiness = z.object({
  status: z.enum(["ok", "unavailable"]),
  postgres: z.enum(["ok", "unreachable"]),
  redis: z.enum(["ok", "unreachable"]),
});

/** Liveness, readiness, metrics and the API reference: what operators and tooling call. */
export function operationsArea(deps: {
  /** Which dependencies answer. */
  readiness: () => Promise<z.output<typeof Readiness>>;
  metrics: () => Promise<{ type: string; body: string }>;
  /** The OpenAPI document, serialised once. */
  openapi: () => string;
}): Area {
  return {
    tag: "Operations",
    present: presentStandard,
    routes: [
      route({
        method: "get",
        path: "/healthz",
        summary: "Liveness",
        responses: { 200: { description: "alive", body: Status } },
        handler: () => ({ status: 200, body: { status: "ok" } }),
      }),
      route({
        method: "get",
        path: "/readyz",
        summary: "Readiness (Postgres and Redis reachable)",
        responses: {
          200: { description: "ready", body: Readiness },
          503: { description: "a dependency is unreachable", body: Readiness },
        },
        handler: async () => {
          const body = await deps.readiness();
          return { status: body.status === "ok" ? 200 : 503, body };
        },
      }),
      route({
        method: "get",
        path: "/metrics",
        summary: "Prometheus metrics (METRICS_TOKEN bearer, or loopback clients only)",
        security: "metrics",
        responses: {
          200: { description: "text exposition format" },
          // Refused in the standard error body, like every route (the recorded examples showed it).
          401: error("METRICS_TOKEN set and not presented"),
          403: error("no METRICS_TOKEN set and the client is not on loopback"),
        },
        handler: async () => ({ status: 200, ...(await deps.metrics()) }),
      }),
      route({
        method: "get",
        path: "/openapi.json",
        summary: "This OpenAPI document",
        responses: { 200: { description: "OpenAPI 3.1 document" } },
        handler: () => ({ status: 200, type: "application/json", body: deps.openapi() }),
      }),
      route({
        method: "get",
        path: "/docs",
        summary: "Interactive API reference (Swagger UI)",
        responses: { 200: { description: "HTML page" } },
        handler: () => ({ status: 200, type: "html", body: DOCS_PAGE, headers: DOCS_HEADERS }),
      }),
      route({
        method: "get",
        path: "/docs/assets/init.js",
        summary: "The reference page's start-up script",
        responses: { 200: { description: "JavaScript" } },
        handler: () => ({
          status: 200,
          type: "application/javascript",
          body: DOCS_INIT,
          headers: DOCS_HEADERS,
        }),
      }),
    ],
  };
}
