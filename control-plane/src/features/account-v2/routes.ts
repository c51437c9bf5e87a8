import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import {
  CreateKeyRequest,
  CreateKeyResponse,
  KeyIdParams,
  ListKeysResponse,
  OrganisationResponse,
  SignupRequest,
  SignupResponse,
} from "./schemas.ts";
import type { AccountService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/** Account area v2: organisations sign up, then manage their API keys with Basic auth. */
export function accountV2Area(deps: { accounts: AccountService }): Area {
  const { accounts } = deps;
  return {
    tag: "Accounts v2",
    present: presentStandard,
    routes: [
      route({
        method: "post",
        path: "/user/signup",
        summary: "Sign up an organisation (pending approval)",
        body: SignupRequest,
        rateLimited: true,
        responses: {
          202: { description: "received", body: SignupResponse },
          409: error("e-mail taken"),
        },
        handler: async ({ body, ip }) => {
          await accounts.signup(body, ip);
          return {
            status: 202,
            body: { message: "Sign-up received. The organisation awaits approval by the operator." },
          };
        },
      }),
      route({
        method: "get",
        path: "/user/organisation",
        summary: "The caller's organisation: name, status and scope (our addition)",
        security: "basic",
        responses: { 200: { description: "the organisation", body: OrganisationResponse } },
        handler: async ({ auth }) => ({
          status: 200,
          body: await accounts.getOrganisation(auth.organisationId),
        }),
      }),
      route({
        method: "post",
        path: "/user/api-keys",
        summary: "Issue an API key (secret shown once)",
        security: "basic",
        body: CreateKeyRequest,
        responses: {
          201: { description: "the key, shown once", body: CreateKeyResponse },
          409: error("the organisation holds API_KEYS_PER_ORGANISATION active keys (API_KEY_LIMIT_REACHED)"),
        },
        handler: async ({ auth, body }) => ({
          status: 201,
          body: await accounts.createKey(auth.organisationId, body.label),
        }),
      }),
      // 201 on a read is what the spec gives and what clients of the original API expect (see README).
      route({
        method: "get",
        path: "/user/api-keys",
        summary: "List the organisation's API keys (201, as the spec gives it)",
        security: "basic",
        responses: {
          201: { description: "the active keys", body: ListKeysResponse },
        },
        handler: async ({ auth }) => ({
          status: 201,
          body: { keys: await accounts.listKeys(auth.organisationId) },
        }),
      }),
      route({
        method: "delete",
        path: "/user/api-keys/{keyId}",
        summary: "Revoke an API key",
        security: "basic",
        params: KeyIdParams,
        responses: {
          204: { description: "revoked" },
          404: error("no such key of this organisation"),
        },
        handler: async ({ auth, params }) => {
          await accounts.revokeKey(auth.organisationId, params.keyId);
          return { status: 204 };
        },
      }),
    ],
  };
}
