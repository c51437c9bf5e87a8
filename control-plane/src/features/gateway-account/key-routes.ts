import { ErrorBodies } from "../../errors.ts";
import { errorResponses, route } from "../../http/route.ts";
import type { GatewayKeyService } from "./keys-service.ts";
import {
  KeyIdParams,
  KeyLimitsRequest,
  KeyLimitsResponse,
  RotateKeyRequest,
  RotateKeyResponse,
  SpendCapsRequest,
  SpendCapsResponse,
} from "./schemas.ts";

const error = errorResponses(ErrorBodies.message);
const notFound = error("API key not found");

/** A gateway key's budget and rotation (docs/gateway.md, "Per-key limits and spend caps"). */
export function gatewayKeyRoutes(keys: GatewayKeyService) {
  return [
    route({
      method: "post",
      path: "/api/api-key/{id}/rotate",
      summary: "A new secret for the key (shown once); the old one works until the grace window ends",
      security: "bearer",
      params: KeyIdParams,
      body: RotateKeyRequest,
      responses: {
        200: { description: "the new secret and the old one's deadline", body: RotateKeyResponse },
        404: notFound,
        409: error("the key is deactivated or expired (GATEWAY_KEY_INACTIVE)"),
      },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await keys.rotateKey(auth.userId, params.id, body),
      }),
    }),
    route({
      method: "post",
      path: "/api/api-key/{id}/limits",
      summary: "Set the key's named request limits (several windows; past one the gateway answers 429)",
      security: "bearer",
      params: KeyIdParams,
      body: KeyLimitsRequest,
      responses: {
        200: { description: "the limits as set", body: KeyLimitsResponse },
        404: notFound,
      },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await keys.setLimits(auth.userId, params.id, body),
      }),
    }),
    route({
      method: "get",
      path: "/api/api-key/{id}/spend-caps",
      summary: "The key's daily and monthly spend caps and what they count so far",
      security: "bearer",
      params: KeyIdParams,
      responses: {
        200: {
          description: "caps (null: none) and coins reserved today and this month",
          body: SpendCapsResponse,
        },
        404: notFound,
      },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await keys.spendCaps(auth.userId, params.id),
      }),
    }),
    route({
      method: "post",
      path: "/api/api-key/{id}/spend-caps",
      summary: "Set the key's daily and monthly spend caps (null: none); past one the gateway answers 402",
      security: "bearer",
      params: KeyIdParams,
      body: SpendCapsRequest,
      responses: {
        200: { description: "the caps as set", body: SpendCapsResponse },
        404: notFound,
      },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await keys.setSpendCaps(auth.userId, params.id, body),
      }),
    }),
  ];
}
