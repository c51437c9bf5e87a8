import type { OrganisationScope } from "@stake/db/schema/accounts";
import type { Request } from "express";
import { AppError } from "../errors.ts";
import { type ConsolePrincipal, consoleToken } from "../features/console/sessions.ts";

/** Who is calling a staking area: the approved organisation behind the presented API key. */
export interface StakingAuth {
  organisationId: string;
  keyId: string;
  scope: OrganisationScope;
}

/** The port the API-key check needs: an active (unrevoked) key by its raw value, with its organisation. */
export interface ApiKeyLookup {
  findActiveKey(key: string): Promise<{
    keyId: string;
    organisation: { id: string; status: string; scope: OrganisationScope };
  } | null>;
}

/** The port the console-session check needs: the organisation behind a live token, or null. */
export interface SessionLookup {
  resolve(token: string): Promise<ConsolePrincipal | null>;
}

/**
 * Authentication for the staking areas. Each scheme lists the header names it accepts, the spec's first
 * (every staking area accepts both `api-key` and `x-api-key`). Keys are looked up by SHA-256 hash on every request (no cache), so a revoked or rotated key
 * stops working at once.
 */
export function createApiKeyAuth(deps: {
  keys: ApiKeyLookup;
  headers: readonly string[];
  /** The console's session check: `Authorization: Bearer cs_…` when no API-key header is given. */
  sessions?: SessionLookup;
}) {
  const names = deps.headers.map((h) => h.toLowerCase());
  return async (req: Request): Promise<StakingAuth> => {
    const presented = names.map((n) => req.headers[n]).find((v) => v !== undefined);
    const session =
      presented === undefined && deps.sessions ? consoleToken(req.headers.authorization) : undefined;
    if (session !== undefined && deps.sessions) {
      const principal = await deps.sessions.resolve(session);
      if (!principal) throw new AppError("INVALID_SESSION", "Console session expired or signed out");
      // One request budget per organisation for all its console sessions, apart from its keys' budgets.
      return { ...principal, keyId: `console:${principal.organisationId}` };
    }
    const key = Array.isArray(presented) ? undefined : presented?.trim();
    if (presented === undefined || key === "") {
      throw new AppError("MISSING_API_KEY", `Missing API key header (${names.join(" or ")})`);
    }
    if (!key) throw new AppError("INVALID_API_KEY", "API key header must be given once");
    const found = await deps.keys.findActiveKey(key);
    if (!found) throw new AppError("INVALID_API_KEY", "Invalid or revoked API key");
    if (found.organisation.status !== "approved") {
      throw new AppError(
        "ORGANISATION_NOT_APPROVED",
        `Organisation is ${found.organisation.status}, not approved`,
      );
    }
    return { organisationId: found.organisation.id, keyId: found.keyId, scope: found.organisation.scope };
  };
}

/**
 * Scope rule (docs/architecture.md §3): when the organisation lists addresses of `kind` for `chain`, `address` must be one
 * of them; an absent or empty list means no restriction. Hex addresses compare case-insensitively.
 */
export function assertInScope(
  auth: StakingAuth,
  chain: string,
  address: string,
  kind: "delegator" | "validator" = "delegator",
): void {
  const list =
    auth.scope[chain]?.[kind === "delegator" ? "delegator_addresses" : "validator_addresses"] ?? [];
  if (list.length === 0) return;
  const norm = (a: string) => (/^0x[0-9a-fA-F]+$/.test(a) ? a.toLowerCase() : a);
  const wanted = norm(address);
  if (!list.some((a) => norm(a) === wanted)) {
    throw new AppError(
      "ADDRESS_NOT_IN_SCOPE",
      `Address ${address} is not in the organisation's ${chain} scope`,
    );
  }
}
