import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type RequestHandler } from "express";
import { z } from "zod";
import { SECURITY } from "./http/auth.ts";
import { type Example, type Examples, operationKey } from "./http/examples.ts";
import { type Area, type Route, responsesOf } from "./http/route.ts";
import { openApiWebhooks } from "./platform/event-types.ts";

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** Query or path parameters from an object schema's properties. */
function parameters(schema: z.ZodType, where: "query" | "path") {
  const s = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (s.required ?? []).includes(name),
    schema: property,
  }));
}

/** The examples recorded from the tests (docs/testing.md, "OpenAPI examples"), keyed by operation and status. */
export function recordedExamples(): Examples {
  return JSON.parse(readFileSync(new URL("./openapi-examples.json", import.meta.url), "utf8"));
}

/** What a reader sees beside an example: which reply the request got (and its error code, if any). */
function summary(status: string, e: Example): string {
  const code = (e.response as { code?: unknown } | null)?.code;
  return typeof code === "string" ? `${status} ${code}` : status;
}

function operation(area: Area, r: Route, examples: Record<string, Example> = {}) {
  const example = (status: string) => {
    const e = examples[status];
    return e && { examples: { [status]: { summary: summary(status, e), value: e.response } } };
  };
  const op: Record<string, unknown> = {
    tags: [area.tag],
    summary: r.summary,
    operationId: `${r.method}${r.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string = "") => c.toUpperCase())}`,
    responses: Object.fromEntries(
      Object.entries(responsesOf(r, area)).map(([status, spec]) => [
        status,
        spec.body
          ? {
              description: spec.description,
              content: {
                "application/json": { schema: jsonSchema(spec.body, "output"), ...example(status) },
              },
            }
          : { description: spec.description },
      ]),
    ),
  };
  // The parameters' examples are those of the first success recorded.
  const success = Object.entries(examples).find(([status]) => status.startsWith("2"))?.[1]?.request;
  const withExample = (given: unknown) => (p: { name: string }) => {
    const value = (given as Record<string, unknown> | undefined)?.[p.name];
    return value === undefined ? p : { ...p, example: value };
  };
  const params = [
    ...(r.params ? parameters(r.params, "path").map(withExample(success?.params)) : []),
    ...(r.query ? parameters(r.query, "query").map(withExample(success?.query)) : []),
  ];
  if (params.length) op.parameters = params;
  if (r.body) {
    const requests = Object.entries(examples).filter(([, e]) => e.request.body !== undefined);
    op.requestBody = {
      required: true,
      content: {
        "application/json": {
          schema: jsonSchema(r.body, "input"),
          ...(requests.length && {
            examples: Object.fromEntries(
              requests.map(([status, e]) => [
                status,
                { summary: `answered ${summary(status, e)}`, value: e.request.body },
              ]),
            ),
          }),
        },
      },
    };
  }
  if (r.security) op.security = [{ [r.security]: [] }];
  return op;
}

/** The OpenAPI 3.1 document of the control plane, generated from the route declarations. */
export function openApiDocument(areas: readonly Area[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const examples = recordedExamples();
  for (const area of areas)
    for (const r of area.routes)
      paths[r.path] = { ...paths[r.path], [r.method]: operation(area, r, examples[operationKey(r)]) };
  return {
    openapi: "3.1.0",
    info: {
      title: "Staking provider platform: control plane",
      version: "1.0.0",
      description:
        "Accounts, staking areas and the gateway account API. Envelopes, error bodies, pagination, credentials and units per area: docs/conventions.md. A known path asked with a wrong method answers 405 with `Allow`. The pay-per-request gateway itself (`ANY /gateway/{providerKey}/…`) is a separate deployable.",
    },
    components: { securitySchemes: SECURITY },
    paths,
    // What the platform POSTs to webhook endpoints, one entry per event type.
    webhooks: openApiWebhooks(),
  };
}

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Control plane API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script></body></html>`;
// A separate script file, so the page works under a Content-Security-Policy without inline scripts.
export const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui" });`;

/**
 * What the reference page may load: its own scripts and styles, the OpenAPI document and "try it out"
 * calls on this origin. Swagger UI sets inline style attributes and draws icons from data: URLs, hence
 * those two allowances; no inline script, nothing from another origin, and no framing.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const DOCS_HEADERS = {
  "Content-Security-Policy": DOCS_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/**
 * The two files of swagger-ui-dist the reference page loads, and nothing else of the package: its sample
 * `index.html` and `oauth2-redirect.html` would otherwise run on this origin (the dashboard's), outside
 * any policy. Static files, not endpoints.
 */
const DOCS_FILES = new Set(["/swagger-ui-bundle.js", "/swagger-ui.css"]);
const swaggerFiles = express.static(SWAGGER_UI, {
  index: false,
  setHeaders: (res) => res.set(DOCS_HEADERS),
});
export const docsAssets: RequestHandler = (req, res, next) =>
  DOCS_FILES.has(req.path) ? swaggerFiles(req, res, next) : next();
