import { createRequire } from "node:module";
import { dirname } from "node:path";
import express, { type Router } from "express";
import { z } from "zod";
import * as v1 from "./features/account-v1/schemas.ts";
import * as v2 from "./features/account-v2/schemas.ts";
import * as beacon from "./features/beacon-provisioning/schemas.ts";
import * as gw from "./features/gateway-account/schemas.ts";
import * as hl from "./features/hyperliquid-delegation/schemas.ts";
import * as sol from "./features/solana-stake/schemas.ts";

type Auth = "basic" | "api-key" | "x-api-key" | "stake-key" | "bearer";

interface Endpoint {
  method: "get" | "post" | "delete";
  /** OpenAPI path template (`{param}`), exactly as mounted. */
  path: string;
  tag: string;
  summary: string;
  auth?: Auth;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  /** Status → what it means; the request schemas are the zod schemas the routes parse with. */
  responses: Record<number, string>;
}

const DELEGATION = "Delegation (Hyperliquid)";
const STAKE = "Stake accounts (Solana)";
const BEACON = "Beacon provisioning (Ethereum)";
const GATEWAY = "Gateway account";

/**
 * Every control-plane endpoint, with the zod schema its route parses. The document is generated from this
 * table at start-up, and a test checks that each entry answers on the real app (no 404), so the table and
 * the routes cannot drift apart silently. Response bodies are described in words: they are built by the
 * services, and the README and SPEC give their fields.
 */
export const ENDPOINTS: Endpoint[] = [
  {
    method: "post",
    path: "/user/signup",
    tag: "Accounts v2",
    summary: "Sign up an organisation (pending approval)",
    body: v2.SignupRequest,
    responses: { 202: "`{message}`", 400: "validation error", 409: "e-mail taken", 429: "too many sign-ups" },
  },
  {
    method: "post",
    path: "/user/api-keys",
    tag: "Accounts v2",
    summary: "Issue an API key (secret shown once)",
    auth: "basic",
    body: v2.CreateKeyRequest,
    responses: { 201: "`{keyId, label, apiKey}`", 401: "bad credentials", 403: "organisation not approved" },
  },
  {
    method: "get",
    path: "/user/api-keys",
    tag: "Accounts v2",
    summary: "List the organisation's API keys (201, as the spec gives it)",
    auth: "basic",
    responses: { 201: "`{keys: [{keyId, label, createdAt}]}`", 401: "bad credentials" },
  },
  {
    method: "delete",
    path: "/user/api-keys/{keyId}",
    tag: "Accounts v2",
    summary: "Revoke an API key",
    auth: "basic",
    params: v2.KeyIdParams,
    responses: { 204: "revoked", 400: "malformed keyId", 404: "no such key of this organisation" },
  },
  {
    method: "post",
    path: "/api/public/register",
    tag: "Accounts v1",
    summary: "Register an organisation (v1)",
    body: v1.RegisterRequest,
    responses: { 200: "`{success, pendingUser, message}`", 409: "e-mail taken" },
  },
  {
    method: "post",
    path: "/api/public/generate-api-key",
    tag: "Accounts v1",
    summary: "Rotate the API key (v1; the previous one is revoked)",
    auth: "x-api-key",
    responses: { 200: "`{success, apiKey, message}`", 401: "unknown or revoked key" },
  },

  ...(["delegate", "undelegate", "withdraw", "transfer"] as const).map(
    (op): Endpoint => ({
      method: "post",
      path: `/api/v1/staking/${op}`,
      tag: DELEGATION,
      summary: `Unsigned EIP-712 ${op} action`,
      auth: "api-key",
      body: hl.OperationRequest,
      responses: {
        200: "`{result: {amount, unsignedTransactionBase64, createdAt}}`",
        400: "validation error",
        403: "address outside the key's scope",
      },
    }),
  ),
  {
    method: "get",
    path: "/api/v1/staking/balance",
    tag: DELEGATION,
    summary: "Delegator balance from the Hyperliquid info API",
    auth: "api-key",
    query: hl.BalanceQuery,
    responses: { 200: "`{result: delegator balance}`", 502: "node unreachable" },
  },
  {
    method: "post",
    path: "/api/v1/staking/broadcast",
    tag: DELEGATION,
    summary: "Relay a signed action to Hyperliquid",
    auth: "api-key",
    body: hl.BroadcastRequest,
    responses: {
      200: "`{result: {transactionHash, status, createdAt}}`",
      400: "invalid or rejected action",
      403: "signer outside the key's scope",
      502: "node unreachable",
    },
  },

  {
    method: "post",
    path: "/api/v1/stake",
    tag: STAKE,
    summary: "Unsigned stake transaction (also under /v1)",
    auth: "stake-key",
    body: sol.StakeRequest,
    responses: { 200: "`{success, data}`", 400: "validation error" },
  },
  {
    method: "post",
    path: "/api/v1/deactivate",
    tag: STAKE,
    summary: "Unsigned deactivate transaction",
    auth: "stake-key",
    body: sol.DeactivateRequest,
    responses: { 200: "`{success, data}`", 400: "validation error", 403: "not the stake authority" },
  },
  {
    method: "post",
    path: "/api/v1/withdraw",
    tag: STAKE,
    summary: "Unsigned withdraw transaction",
    auth: "stake-key",
    body: sol.WithdrawRequest,
    responses: { 200: "`{success, data}`", 400: "validation error", 403: "not the withdraw authority" },
  },
  {
    method: "post",
    path: "/api/v1/balance",
    tag: STAKE,
    summary: "Balance of a wallet or of stake accounts",
    auth: "stake-key",
    body: sol.BalanceRequest,
    responses: { 200: "`{success, data: balance response}`", 400: "both or neither selector" },
  },
  {
    method: "get",
    path: "/api/v1/rewards",
    tag: STAKE,
    summary: "Rewards per epoch, week or month (inflation + MEV)",
    auth: "stake-key",
    query: sol.RewardsQuery,
    responses: { 200: "rewards response", 400: "validation error" },
  },
  {
    method: "get",
    path: "/api/v1/history/events",
    tag: STAKE,
    summary: "Stake history events, paged",
    auth: "stake-key",
    query: sol.HistoryQuery,
    responses: { 200: "history response", 400: "validation error" },
  },

  {
    method: "post",
    path: "/api/provision",
    tag: BEACON,
    summary: "Provision validators (runs as a background job; Idempotency-Key honoured)",
    auth: "api-key",
    body: beacon.ProvisionRequest,
    responses: {
      200: "`{result: {created, status, provisionId, …}}`",
      400: "validation error",
      409: "same Idempotency-Key, other body",
    },
  },
  {
    method: "get",
    path: "/api/validators",
    tag: BEACON,
    summary: "Validators of a provision",
    auth: "api-key",
    query: beacon.ProvisionQuery,
    responses: { 200: "validator objects", 404: "no such provision of this organisation" },
  },
  {
    method: "get",
    path: "/api/deposit-details",
    tag: BEACON,
    summary: "Deposit data and calldata of a provision",
    auth: "api-key",
    query: beacon.ProvisionQuery,
    responses: { 200: "deposit details", 404: "no such provision of this organisation" },
  },
  {
    method: "post",
    path: "/api/validators/add-stake",
    tag: BEACON,
    summary: "Top-up deposit for a 0x02 validator",
    auth: "api-key",
    body: beacon.AddStakeRequest,
    responses: {
      200: "`{validatorAddress, addStakeAmount, depositInput}`",
      400: "not eligible or over the cap",
    },
  },
  {
    method: "get",
    path: "/api/validators/provisions",
    tag: BEACON,
    summary: "The organisation's validators with their provision ids",
    auth: "api-key",
    query: beacon.ListQuery,
    responses: { 200: "`{results, page, per_page, total, pages}`" },
  },
  {
    method: "get",
    path: "/api/validators/count",
    tag: BEACON,
    summary: "Validator counts by status",
    auth: "api-key",
    responses: { 200: "counts by status" },
  },

  {
    method: "post",
    path: "/api/onboarding/signup",
    tag: GATEWAY,
    summary: "Create a gateway user",
    body: gw.SignupRequest,
    responses: { 201: "`{userId, email, createdAt}`", 409: "User already exists" },
  },
  {
    method: "post",
    path: "/api/onboarding/login",
    tag: GATEWAY,
    summary: "Log in: a short-lived bearer token",
    body: gw.LoginRequest,
    responses: { 200: "`{token, tokenType, expiresIn}`", 401: "Unauthorized" },
  },
  {
    method: "post",
    path: "/api/party/create",
    tag: GATEWAY,
    summary: "Create the user's ledger party (one per user)",
    auth: "bearer",
    responses: { 201: "`{partyId, createdAt}`", 409: "Party already exists" },
  },
  {
    method: "post",
    path: "/api/api-key/create",
    tag: GATEWAY,
    summary: "Create a gateway API key (shown once)",
    auth: "bearer",
    responses: { 201: "`{id, key, start, createdAt}`" },
  },
  {
    method: "post",
    path: "/api/api-key/{id}/deactivate",
    tag: GATEWAY,
    summary: "Deactivate one of the user's gateway keys",
    auth: "bearer",
    params: gw.KeyIdParams,
    responses: { 200: "`{id, active: false, deactivatedAt}`", 404: "API key not found" },
  },
  {
    method: "get",
    path: "/api/balance",
    tag: GATEWAY,
    summary: "Ledger-coin balance and reserved balance (decimal strings)",
    auth: "bearer",
    responses: { 200: "`{balance, reservedBalance}`" },
  },
  {
    method: "get",
    path: "/api/reservations",
    tag: GATEWAY,
    summary: "The party's reservations, newest first",
    auth: "bearer",
    query: gw.PageQuery,
    responses: { 200: "`{reservations, page, pageSize, total}`" },
  },
  {
    method: "get",
    path: "/api/health",
    tag: GATEWAY,
    summary: "Gateway account API health",
    responses: { 200: '`{status: "ok"}`' },
  },

  {
    method: "get",
    path: "/healthz",
    tag: "Operations",
    summary: "Liveness",
    responses: { 200: '`{status: "ok"}`' },
  },
  {
    method: "get",
    path: "/readyz",
    tag: "Operations",
    summary: "Readiness (Postgres and Redis reachable)",
    responses: { 200: "ready", 503: "a dependency is unreachable" },
  },
];

const SECURITY: Record<Auth, Record<string, unknown>> = {
  basic: { type: "http", scheme: "basic", description: "Organisation e-mail and password" },
  "api-key": { type: "apiKey", in: "header", name: "api-key" },
  "x-api-key": { type: "apiKey", in: "header", name: "x-api-key" },
  "stake-key": { type: "apiKey", in: "header", name: "x-api-key", description: "`api-key` is accepted too" },
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
};

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/** Query or path parameters from an object schema's properties. */
function parameters(schema: z.ZodType, where: "query" | "path") {
  const s = jsonSchema(schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === "path" || (s.required ?? []).includes(name),
    schema: property,
  }));
}

/** The OpenAPI 3.1 document of the control plane. */
export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of ENDPOINTS) {
    const op: Record<string, unknown> = {
      tags: [e.tag],
      summary: e.summary,
      responses: Object.fromEntries(
        Object.entries(e.responses).map(([status, description]) => [status, { description }]),
      ),
    };
    const params = [
      ...(e.params ? parameters(e.params, "path") : []),
      ...(e.query ? parameters(e.query, "query") : []),
    ];
    if (params.length) op.parameters = params;
    if (e.body)
      op.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(e.body) } } };
    if (e.auth) op.security = [{ [e.auth]: [] }];
    paths[e.path] = { ...paths[e.path], [e.method]: op };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Staking provider platform: control plane",
      version: "1.0.0",
      description:
        "Accounts, staking areas (Hyperliquid, Solana, Ethereum) and the gateway account API. Error bodies per area: see the README. The pay-per-request gateway itself (`ANY /gateway/{providerKey}/…`) is a separate deployable.",
    },
    components: { securitySchemes: SECURITY },
    paths,
  };
}

const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Control plane API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script></body></html>`;
// A separate script file, so the page works under a Content-Security-Policy without inline scripts.
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui" });`;

/** `GET /openapi.json` and the interactive reference at `/docs` (Swagger UI, served from the package). */
export function createDocsRouter(): Router {
  const document = JSON.stringify(openApiDocument());
  const router = express.Router();
  router.get("/openapi.json", (_req, res) => {
    res.type("application/json").send(document);
  });
  router.get("/docs", (_req, res) => {
    res.type("html").send(DOCS_PAGE);
  });
  router.get("/docs/assets/init.js", (_req, res) => {
    res.type("application/javascript").send(DOCS_INIT);
  });
  router.use("/docs/assets", express.static(SWAGGER_UI, { index: false }));
  return router;
}
