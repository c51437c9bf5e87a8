import type { z } from "zod";
import { ApiError, call, type Method, retryIn, send } from "../../../page-kit/http.ts";
import type { CreateKeyResponse, ListKeysResponse, OrganisationResponse } from "../../account-v2/schemas.ts";
import type { RatesResponse } from "../../beacon-data/rates-schemas.ts";
import type { DateRewardsResponse, ValidatorListResponse } from "../../beacon-data/schemas.ts";
import type {
  ExitResponse,
  OrganisationValidatorsResponse,
  WithdrawalRequestsResponse,
} from "../../beacon-provisioning/schemas.ts";
import type { BalanceResponse } from "../../solana-stake/schemas.ts";
import type { StatementResponse } from "../../statements/schemas.ts";
import type { DeliveriesResponse, EndpointListResponse } from "../../webhooks/schemas.ts";
import type { SignInResponse } from "../schemas.ts";

// The wire types come from the API's own response schemas (type-only imports: nothing of zod is bundled).
export type SignIn = z.output<typeof SignInResponse>;
export type Organisation = z.output<typeof OrganisationResponse>;
export type KeyList = z.output<typeof ListKeysResponse>;
export type NewKey = z.output<typeof CreateKeyResponse>;
export type ValidatorList = z.output<typeof ValidatorListResponse>;
export type Provisions = z.output<typeof OrganisationValidatorsResponse>;
export type DateRewards = z.output<typeof DateRewardsResponse>;
export type RateSeries = z.output<typeof RatesResponse>;
export type Statement = z.output<typeof StatementResponse>;
export type Endpoints = z.output<typeof EndpointListResponse>;
export type Deliveries = z.output<typeof DeliveriesResponse>;
export type Exits = z.output<typeof ExitResponse>;
export type WithdrawalRequests = z.output<typeof WithdrawalRequestsResponse>;
export type SolanaBalance = z.output<typeof BalanceResponse>;

/** What the user did when an error came back: the same status reads differently per action. */
export type Action = "sign-in" | "read" | "send" | "key";

/** An API call with the session's token; a 401 (session ended) signs out with a message. */
export type Api = <T>(method: Method, path: string, action: Action, body?: unknown) => Promise<T>;

/** A download through the session (the CSV): the body as a Blob, errors as for `Api`. */
export type Download = (path: string) => Promise<Blob>;

export function sessionApi(token: string, onEnded: (why: string) => void): { api: Api; download: Download } {
  const ended = (err: unknown, action: Action) => {
    if (err instanceof ApiError && err.status === 401) onEnded(explain(err, action));
    throw err;
  };
  return {
    api: <T>(method: Method, path: string, action: Action, body?: unknown) =>
      call<T>(method, path, token, body).catch((err: unknown) => ended(err, action)),
    download: (path: string) =>
      send("GET", path, token, undefined, "text/csv")
        .then((r) => r.blob())
        .catch((err: unknown) => ended(err, "read")),
  };
}

export { ApiError, call };

/** The API's refusals as sentences a user can act on (the raw API message when it already is one). */
export function explain(error: unknown, action: Action): string {
  if (!(error instanceof ApiError)) return "Something went wrong. Reload the page and try again.";
  switch (error.status) {
    case 0:
    case 400:
    case 404:
    case 409:
      return error.message;
    case 401:
      return action === "sign-in"
        ? "Wrong e-mail or password."
        : "Your session has ended (it lasts 30 minutes, or you signed out elsewhere). Sign in again.";
    case 403:
      return action === "sign-in"
        ? `This organisation cannot sign in: ${error.message}.`
        : `Not allowed: ${error.message}.`;
    case 429:
      return retryIn(error);
    case 502:
    case 504:
      return "The chain node behind this view did not answer. Try again in a moment.";
    default:
      return `The server could not complete this (${error.status}). Try again in a moment.`;
  }
}

/** Gwei as ETH, exact (string arithmetic: amounts never pass through a float). */
export function gweiToEth(gwei: string): string {
  const negative = gwei.startsWith("-");
  const digits = (negative ? gwei.slice(1) : gwei).padStart(10, "0");
  const whole = digits.slice(0, -9).replace(/^0+(?=\d)/, "");
  const fraction = digits.slice(-9).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
