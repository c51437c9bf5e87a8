import type { RequestHandler } from "express";
import { ErrorBodies, presentMessage } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { gatewayKeyRoutes } from "./key-routes.ts";
import type { GatewayKeyService } from "./keys-service.ts";
import {
  BalanceResponse,
  CoinRateResponse,
  CreateKeyRequest,
  CreateKeyResponse,
  DeactivateKeyResponse,
  FundingResponse,
  HealthResponse,
  KeyIdParams,
  KeyListResponse,
  LoginRequest,
  LoginResponse,
  LowBalanceThresholdRequest,
  LowBalanceThresholdResponse,
  PageQuery,
  PartyLookupResponse,
  PartyResponse,
  ProvidersResponse,
  ReservationsResponse,
  SignupRequest,
  SignupResponse,
  SpendCapsRequest,
  SpendCapsResponse,
  UsageQuery,
  UsageResponse,
} from "./schemas.ts";
import type { GatewayAccountService } from "./service.ts";
import { usageCsv } from "./usage.ts";

const error = errorResponses(ErrorBodies.message);

/** Gateway account API: gateway users, their ledger party and gateway keys (bearer JWT from login). */
export function gatewayAccountArea(deps: {
  accounts: GatewayAccountService;
  keys: GatewayKeyService;
  /** One limiter shared by every route of the area: 300 requests per 15 minutes per client. */
  limit: RequestHandler;
}): Area {
  const { accounts } = deps;
  return {
    tag: "Gateway account",
    present: presentMessage,
    use: [deps.limit],
    rateLimited: true,
    routes: [
      route({
        method: "post",
        path: "/api/onboarding/signup",
        summary: "Create a gateway user",
        body: SignupRequest,
        responses: {
          201: { description: "created", body: SignupResponse },
          409: error("User already exists"),
        },
        handler: async ({ body }) => ({ status: 201, body: await accounts.signup(body) }),
      }),
      route({
        method: "post",
        path: "/api/onboarding/login",
        summary: "Log in: a short-lived bearer token",
        body: LoginRequest,
        responses: {
          200: { description: "the token", body: LoginResponse },
          401: error("Unauthorized"),
          429: error(
            "too many requests, or failed attempts from this address for this e-mail; retry after Retry-After",
          ),
        },
        handler: async ({ body, ip }) => ({ status: 200, body: await accounts.login(body, ip) }),
      }),
      route({
        method: "post",
        path: "/api/party/create",
        summary: "Create the user's ledger party (one per user)",
        security: "bearer",
        responses: {
          201: { description: "created", body: PartyResponse },
          409: error("Party already exists"),
        },
        handler: async ({ auth }) => ({ status: 201, body: await accounts.createParty(auth.userId) }),
      }),
      route({
        method: "get",
        path: "/api/party",
        summary: "The user's ledger party (null until created)",
        security: "bearer",
        responses: {
          200: { description: "the party, or null", body: PartyLookupResponse },
        },
        handler: async ({ auth }) => ({ status: 200, body: await accounts.party(auth.userId) }),
      }),
      route({
        method: "get",
        path: "/api/api-key/list",
        summary: "The user's gateway keys, newest first (display prefix only, never the secret)",
        security: "bearer",
        responses: {
          200: { description: "the keys", body: KeyListResponse },
        },
        handler: async ({ auth }) => ({ status: 200, body: await accounts.keys(auth.userId) }),
      }),
      route({
        method: "post",
        path: "/api/api-key/create",
        summary: "Create a gateway API key (shown once), optionally with a label",
        security: "bearer",
        body: CreateKeyRequest,
        responses: {
          201: { description: "the key, shown once", body: CreateKeyResponse },
          409: error("the user holds GATEWAY_KEYS_PER_USER active keys (GATEWAY_KEY_LIMIT_REACHED)"),
        },
        handler: async ({ auth, body }) => ({
          status: 201,
          body: await accounts.createKey(auth.userId, body),
        }),
      }),
      route({
        method: "post",
        path: "/api/api-key/{id}/deactivate",
        summary: "Deactivate one of the user's gateway keys",
        security: "bearer",
        params: KeyIdParams,
        responses: {
          200: { description: "deactivated", body: DeactivateKeyResponse },
          404: error("API key not found"),
        },
        handler: async ({ auth, params }) => ({
          status: 200,
          body: await accounts.deactivateKey(auth.userId, params.id),
        }),
      }),
      ...gatewayKeyRoutes(deps.keys),
      route({
        method: "get",
        path: "/api/balance",
        summary: "Ledger-coin balance and reserved balance (decimal strings)",
        security: "bearer",
        responses: {
          200: { description: "balances", body: BalanceResponse },
          403: error("User does not have a party"),
        },
        handler: async ({ auth }) => ({ status: 200, body: await accounts.balance(auth.userId) }),
      }),
      route({
        method: "get",
        path: "/api/balance/low-threshold",
        summary: "The balance under which settlement sends gateway.balance_low (null: never; our addition)",
        security: "bearer",
        responses: {
          200: { description: "the threshold in force", body: LowBalanceThresholdResponse },
          403: error("User does not have a party"),
        },
        handler: async ({ auth }) => ({ status: 200, body: await accounts.lowBalanceThreshold(auth.userId) }),
      }),
      route({
        method: "get",
        path: "/api/funding",
        summary: "The party's funding credits with their reference, newest first (our addition)",
        security: "bearer",
        query: PageQuery,
        responses: {
          200: { description: "a page of credits", body: FundingResponse },
          403: error("User does not have a party"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await accounts.funding(auth.userId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/coin-rate",
        summary: "The coin→USD rate requests are priced at (our addition)",
        security: "bearer",
        responses: { 200: { description: "the rate in force, or null", body: CoinRateResponse } },
        handler: async () => ({ status: 200, body: await accounts.coinRate() }),
      }),
      route({
        method: "post",
        path: "/api/balance/low-threshold",
        summary:
          "Set the balance under which settlement sends gateway.balance_low (null: never; our addition)",
        security: "bearer",
        body: LowBalanceThresholdRequest,
        responses: {
          200: { description: "the threshold in force", body: LowBalanceThresholdResponse },
          403: error("User does not have a party"),
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await accounts.setLowBalanceThreshold(auth.userId, body),
        }),
      }),
      route({
        method: "get",
        path: "/api/reservations",
        summary: "The party's reservations, newest first: the request log (key, path, status, latency, cost)",
        security: "bearer",
        query: PageQuery,
        responses: {
          200: { description: "a page of reservations", body: ReservationsResponse },
          403: error("User does not have a party"),
          503: error("the worker has not recorded the party's latest reservations yet (Retry-After)"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await accounts.reservations(auth.userId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/party/spend-caps",
        summary: "The party's daily and monthly spend caps and what they count so far",
        security: "bearer",
        responses: {
          200: {
            description: "caps (null: none) and coins reserved today and this month",
            body: SpendCapsResponse,
          },
          403: error("User does not have a party"),
        },
        handler: async ({ auth }) => ({ status: 200, body: await accounts.spendCaps(auth.userId) }),
      }),
      route({
        method: "post",
        path: "/api/party/spend-caps",
        summary:
          "Set the party's daily and monthly spend caps (null: none); past one the gateway answers 402",
        security: "bearer",
        body: SpendCapsRequest,
        responses: {
          200: { description: "the caps as set", body: SpendCapsResponse },
          403: error("User does not have a party"),
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await accounts.setSpendCaps(auth.userId, body),
        }),
      }),
      route({
        method: "get",
        path: "/api/usage",
        summary:
          "The party's daily usage per key and provider over a UTC day range (default: the last 7 days)",
        security: "bearer",
        query: UsageQuery,
        responses: {
          200: { description: "usage rows, oldest day first, and their totals", body: UsageResponse },
          403: error("User does not have a party"),
          503: error("the worker has not recorded the party's latest reservations yet (Retry-After)"),
        },
        handler: async ({ auth, query }) => ({ status: 200, body: await accounts.usage(auth.userId, query) }),
      }),
      route({
        method: "get",
        path: "/api/usage.csv",
        summary: "The same usage rows as CSV (RFC 4180, a header line)",
        security: "bearer",
        query: UsageQuery,
        responses: {
          200: { description: "text/csv; one line per usage row" },
          403: error("User does not have a party"),
          503: error("the worker has not recorded the party's latest reservations yet (Retry-After)"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          type: "text/csv; charset=utf-8",
          headers: { "content-disposition": `attachment; filename="usage-${query.from}-${query.to}.csv"` },
          body: usageCsv(await accounts.usage(auth.userId, query)),
        }),
      }),
      route({
        method: "get",
        path: "/api/providers",
        summary: "Providers a gateway key can call, with their USD price per request",
        security: "bearer",
        responses: {
          200: { description: "the providers", body: ProvidersResponse },
        },
        handler: async () => ({ status: 200, body: await accounts.providers() }),
      }),
      route({
        method: "get",
        path: "/api/health",
        summary: "Gateway account API health",
        responses: { 200: { description: "up", body: HealthResponse } },
        handler: () => ({ status: 200, body: { status: "ok" } }),
      }),
    ],
  };
}
