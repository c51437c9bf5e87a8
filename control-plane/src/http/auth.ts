import type { Request } from "express";
import { AppError } from "../errors.ts";
import type { StakingAuth } from "./api-key-auth.ts";

/** The console's session token stands in for an organisation's key (docs/console.md). */
const SESSION = "; so is a console session, `Authorization: Bearer cs_…` (POST /console/session)";

/**
 * The security schemes a route can declare. Each names one way of proving who calls, and maps to one
 * authenticator (built in the composition root) and one OpenAPI security scheme.
 */
export const SECURITY = {
  /** Organisation e-mail and password (account v2 key endpoints). */
  basic: {
    type: "http",
    scheme: "basic",
    description: "Organisation e-mail and password; a console session (`Authorization: Bearer cs_…`) too",
  },
  /** Every staking area accepts both header names; the scheme names the one its spec uses. */
  "api-key": {
    type: "apiKey",
    in: "header",
    name: "api-key",
    description: `\`x-api-key\` is accepted too${SESSION}`,
  },
  "x-api-key": {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: `\`api-key\` is accepted too${SESSION}`,
  },
  "stake-key": {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: `\`api-key\` is accepted too${SESSION}`,
  },
  /** Account v1 rotation: the presented key itself is what the service rotates. */
  "v1-key": { type: "apiKey", in: "header", name: "x-api-key", description: "The key to rotate" },
  bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
  metrics: {
    type: "http",
    scheme: "bearer",
    description: "METRICS_TOKEN; without one configured, loopback clients only",
  },
} as const;

export type Security = keyof typeof SECURITY;

/** What each scheme proves: the caller's identity as handlers receive it. */
interface Principals {
  basic: { organisationId: string };
  "api-key": StakingAuth;
  "x-api-key": StakingAuth;
  "stake-key": StakingAuth;
  "v1-key": { key: string };
  bearer: { userId: string };
  metrics: { scraper: true };
}

export type Principal<S extends Security> = Principals[S];

export type Authenticators = { [S in Security]: (req: Request) => Promise<Principal<S>> };

/** The `x-api-key` header of account v1, checked for presence only: rotation itself verifies it. */
export async function readV1Key(req: Request): Promise<{ key: string }> {
  const header = req.headers["x-api-key"];
  if (header === undefined || header === "")
    throw new AppError("MISSING_API_KEY", "Missing x-api-key header");
  if (Array.isArray(header)) throw new AppError("INVALID_API_KEY", "x-api-key must be given once");
  return { key: header.trim() };
}
