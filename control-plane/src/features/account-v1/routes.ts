import { ErrorBodies, presentV1 } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { RegisterRequest, RegisterResponse, RotateKeyResponse } from "./schemas.ts";
import type { AccountV1Service } from "./service.ts";

const error = errorResponses(ErrorBodies.v1);

/** Account area v1: registration and single-key rotation over the same organisations as v2. */
export function accountV1Area(deps: { accounts: AccountV1Service }): Area {
  const { accounts } = deps;
  return {
    tag: "Accounts v1",
    present: presentV1,
    routes: [
      route({
        method: "post",
        path: "/api/public/register",
        summary: "Register an organisation (v1)",
        body: RegisterRequest,
        rateLimited: true,
        responses: {
          200: { description: "received", body: RegisterResponse },
          409: error("e-mail taken"),
        },
        handler: async ({ body, ip }) => ({
          status: 200,
          body: {
            success: true,
            pendingUser: await accounts.register(body, ip),
            message: "Registration received. The organisation awaits approval by the operator.",
          },
        }),
      }),
      route({
        method: "post",
        path: "/api/public/generate-api-key",
        summary: "Rotate the API key (v1; the previous one is revoked)",
        security: "v1-key",
        responses: {
          200: { description: "the new key, shown once", body: RotateKeyResponse },
        },
        handler: async ({ auth }) => ({
          status: 200,
          body: {
            success: true,
            apiKey: await accounts.rotateKey(auth.key),
            message: "New API key issued; the previous key is revoked.",
          },
        }),
      }),
    ],
  };
}
