import type { z } from "zod";
import { ApiError, retryIn } from "../../../page-kit/http.ts";
import type {
  BalanceResponse,
  CoinRateResponse,
  CreateKeyResponse,
  FundingResponse,
  KeyListResponse,
  LoginResponse,
  LowBalanceThresholdResponse,
  PartyLookupResponse,
  PartyResponse,
  ProvidersResponse,
  ReservationsResponse,
  SpendCapsResponse,
  UsageResponse,
} from "../../gateway-account/schemas.ts";
import type { EndpointListResponse } from "../../webhooks/schemas.ts";

export { ApiError, call } from "../../../page-kit/http.ts";

// The wire types come from the API's own response schemas (type-only imports: nothing of zod is bundled).
export type Balance = z.output<typeof BalanceResponse>;
export type NewKey = z.output<typeof CreateKeyResponse>;
export type KeyList = z.output<typeof KeyListResponse>;
export type Login = z.output<typeof LoginResponse>;
export type Party = z.output<typeof PartyResponse>;
export type PartyLookup = z.output<typeof PartyLookupResponse>;
export type Providers = z.output<typeof ProvidersResponse>;
export type ReservationPage = z.output<typeof ReservationsResponse>;
export type FundingPage = z.output<typeof FundingResponse>;
export type CoinRate = z.output<typeof CoinRateResponse>;
export type SpendCaps = z.output<typeof SpendCapsResponse>;
export type Threshold = z.output<typeof LowBalanceThresholdResponse>;
export type Usage = z.output<typeof UsageResponse>;
export type Webhooks = z.output<typeof EndpointListResponse>;

/** What the user did when an error came back: the same status reads differently per form. */
export type Action = "login" | "signup" | "party" | "key" | "deactivate" | "read" | "settings";

/** An API call with the session's token; a 401 (expired or invalid token) ends the session with a message. */
export type Api = <T>(method: "GET" | "POST", path: string, action: Action, body?: unknown) => Promise<T>;

/** The API's refusals as sentences a user can act on (the raw API message when it already is one). */
export function explain(error: unknown, action: Action): string {
  if (!(error instanceof ApiError)) return "Something went wrong. Reload the page and try again.";
  switch (error.status) {
    case 0:
      return error.message;
    case 400:
      return error.message;
    case 401:
      return action === "login"
        ? "Wrong e-mail or password."
        : "Your session has expired or is no longer valid. Log in again.";
    case 403:
      return action === "read" || action === "key"
        ? "Create your party first: balances and reservations belong to it."
        : `Not allowed: ${error.message}.`;
    case 404:
      return action === "deactivate" ? "This key no longer exists." : error.message;
    case 409:
      if (action === "signup") return "An account with this e-mail already exists. Log in instead.";
      if (action === "party") return "You already have a party.";
      return error.message;
    case 429:
      return retryIn(error);
    default:
      return `The server could not complete this (${error.status}). Try again in a moment.`;
  }
}
