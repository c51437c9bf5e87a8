import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { AssetParams, SignInRequest, SignInResponse } from "./schemas.ts";
import type { ConsoleService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/**
 * The organisations' console (our addition): a static page over the staking API on the same origin, and
 * the session it signs in with (docs/console.md).
 */
export function consoleArea(deps: { service: ConsoleService }): Area {
  const { service } = deps;
  return {
    tag: "Console",
    present: presentStandard,
    routes: [
      route({
        method: "get",
        path: "/console",
        summary: "The organisations' console (HTML, strict Content-Security-Policy)",
        responses: { 200: { description: "HTML page" } },
        handler: async () => ({ status: 200, type: "html", ...(await service.page()) }),
      }),
      route({
        method: "get",
        path: "/console/assets/{file}",
        summary: "The console's scripts, styles and icon under content-hashed names (cached for a year)",
        params: AssetParams,
        responses: { 200: { description: "the file" }, 404: error("no such asset") },
        handler: async ({ params }) => ({ status: 200, ...(await service.asset(params.file)) }),
      }),
      route({
        method: "post",
        path: "/console/session",
        summary:
          "Sign in to the console with the v2 account's e-mail and password: a 30-minute session token that the staking endpoints accept as the organisation's credential",
        body: SignInRequest,
        rateLimited: true,
        responses: {
          201: { description: "the session", body: SignInResponse },
          401: error("wrong e-mail or password (INVALID_CREDENTIALS)"),
          403: error("the organisation is pending, rejected or suspended"),
        },
        handler: async ({ body, ip }) => ({
          status: 201,
          body: await service.signIn(body, ip),
          headers: { "Cache-Control": "no-store" },
        }),
      }),
      route({
        method: "delete",
        path: "/console/session",
        summary: "Sign out: the session token of `Authorization: Bearer` stops working at once",
        responses: { 204: { description: "signed out (also for an unknown or expired token)" } },
        handler: async ({ req }) => {
          await service.signOut(req.headers.authorization);
          return { status: 204 };
        },
      }),
    ],
  };
}
