import type { ErrorRequestHandler } from "express";
import { z } from "zod";
import { ACCOUNT_ERRORS } from "./features/account-v2/errors.ts";
import { BEACON_DATA_ERRORS } from "./features/beacon-data/errors.ts";
import { BEACON_ERRORS } from "./features/beacon-provisioning/errors.ts";
import { GATEWAY_ACCOUNT_ERRORS } from "./features/gateway-account/errors.ts";
import { HYPERLIQUID_ERRORS } from "./features/hyperliquid-delegation/errors.ts";
import { POLYGON_REWARDS_ERRORS } from "./features/polygon-rewards/errors.ts";
import { SOLANA_STAKE_ERRORS } from "./features/solana-stake/errors.ts";
import { SUI_REWARDS_ERRORS } from "./features/sui-rewards/errors.ts";
import { WEBHOOK_ERRORS } from "./features/webhooks/errors.ts";
import type { Logger } from "./log.ts";
import { zodMessages } from "./validation-messages.ts";

/**
 * One error vocabulary for the whole control plane (docs/architecture.md §4). Codes are append-only: never rename one,
 * clients match on them. Each feature declares its own codes in `features/<area>/errors.ts`; they are merged
 * here so the status of every code is decided in one table.
 */
export const CORE_ERRORS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  BAD_REQUEST: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  ORGANISATION_NOT_APPROVED: 403,
  ADDRESS_NOT_IN_SCOPE: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  /** Shared by the staking areas: no such validator (vote account, beacon validator) for this caller. */
  VALIDATOR_NOT_FOUND: 404,
  /** The path exists, the method does not: header `Allow` lists those it has (our addition). */
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_SERVER_ERROR: 500,
  UPSTREAM_UNAVAILABLE: 502,
  SERVICE_UNAVAILABLE: 503,
  /** A data area's indexer has not reached what was asked yet; always with Retry-After (docs/spec.md, Errors). */
  NOT_INDEXED_YET: 503,
  /** A data area's node serves another chain than the one indexed: its data is withheld (docs/spec.md, Errors; our addition). */
  CHAIN_MISMATCH: 503,
  UPSTREAM_TIMEOUT: 504,
} as const;

type Merged<T extends readonly Record<string, number>[]> = T extends readonly [infer H, ...infer R]
  ? H & (R extends readonly Record<string, number>[] ? Merged<R> : unknown)
  : unknown;

/** Merges the feature tables, refusing a code defined twice: one code, one status, one meaning. */
export function mergeErrorTables<T extends readonly Record<string, number>[]>(...tables: T): Merged<T> {
  const merged: Record<string, number> = {};
  for (const table of tables) {
    for (const [code, status] of Object.entries(table)) {
      if (code in merged) throw new Error(`error code ${code} is defined twice`);
      merged[code] = status;
    }
  }
  return merged as Merged<T>;
}

export const ERROR_STATUS = mergeErrorTables(
  CORE_ERRORS,
  ACCOUNT_ERRORS,
  GATEWAY_ACCOUNT_ERRORS,
  SOLANA_STAKE_ERRORS,
  HYPERLIQUID_ERRORS,
  BEACON_ERRORS,
  SUI_REWARDS_ERRORS,
  BEACON_DATA_ERRORS,
  POLYGON_REWARDS_ERRORS,
  WEBHOOK_ERRORS,
);

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers, e.g. Retry-After on 429. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/** The one "not indexed yet" refusal of every data area: 503 NOT_INDEXED_YET with Retry-After. */
export function notIndexedYet(message: string, retryAfterSeconds: number): AppError {
  return new AppError("NOT_INDEXED_YET", message, {
    headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  });
}

/** zod issues → the spec's `details: [{field, message}]`; a missing field reads "Required". */
export function validationError(error: z.ZodError, root = "body"): AppError {
  const details = error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.join(".") : root,
    message: issue.message,
  }));
  const first = details[0];
  const message = first ? `Invalid ${first.field}: ${first.message}` : "Invalid request";
  return new AppError("VALIDATION_ERROR", message, { details });
}

/** Parses `input` with `schema`, throwing the area-neutral VALIDATION_ERROR on failure. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, root = "body"): z.output<S> {
  const result = schema.safeParse(input, { error: zodMessages });
  if (!result.success) throw validationError(result.error, root);
  return result.data;
}

/**
 * What a pure builder throws when its input cannot make a valid payload (an amount out of range, a key of
 * the wrong length, a transaction over the size limit). It knows nothing of HTTP: the one mapper below
 * turns it into the area's 400 VALIDATION_ERROR, so a builder's refusal is never a 500.
 */
export class BuilderError extends Error {
  override name = "BuilderError";
  /** The request field the refusal is about, when there is one. */
  readonly field: string | undefined;
  constructor(message: string, field?: string) {
    super(message);
    this.field = field;
  }
}

/** Connection-level failures of Postgres (postgres.js, SQLSTATE classes 08 and 57P) or Redis (ioredis). */
const STORE_DOWN = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);
function storeUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (typeof code === "string" && (STORE_DOWN.has(code) || /^(08|57P)/.test(code))) return true;
    if (name === "MaxRetriesPerRequestError") return true;
    if (typeof message === "string" && /^(Connection is closed|Stream isn't writeable)/.test(message))
      return true;
  }
  return false;
}

/**
 * Converts whatever reached the error middleware into an AppError: a builder's refusal is the area's 400,
 * Postgres or Redis out of reach a 503 (the client may retry; the pools reconnect by themselves), any
 * other unknown fault a 500.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof BuilderError) {
    return new AppError("VALIDATION_ERROR", err.message, {
      details: [{ field: err.field ?? "body", message: err.message }],
    });
  }
  if (storeUnavailable(err))
    return new AppError("SERVICE_UNAVAILABLE", "Service temporarily unavailable", { cause: err });
  if (err instanceof z.ZodError) return validationError(err);
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case "entity.parse.failed":
      return new AppError("INVALID_JSON", "Request body is not valid JSON");
    case "entity.too.large":
      return new AppError("PAYLOAD_TOO_LARGE", "Request body is too large");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new AppError("UNSUPPORTED_MEDIA_TYPE", "Unsupported request body encoding");
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new AppError("BAD_REQUEST", "Malformed request body");
  }
  return new AppError("INTERNAL_SERVER_ERROR", "Internal server error", { cause: err });
}

/**
 * A presenter renders an AppError as one area's wire body (the spec fixes a body shape per area); `body` is
 * that shape's schema, from which the routes' error responses are documented and checked.
 */
export interface Presenter {
  (error: AppError): unknown;
  readonly body: z.ZodType;
}

/** The error bodies, as schemas for the route declarations (each matches its presenter below). */
export const ErrorBodies = {
  standard: z.object({
    error: z.string(),
    code: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  }),
  v1: z.object({ success: z.literal(false), code: z.string(), message: z.string() }),
  message: z.object({ message: z.string() }),
};

/** Account v2 and every area without its own format: `{error, code, details?}`. */
export const presentStandard: Presenter = Object.assign(
  (e: AppError) =>
    e.details ? { error: e.message, code: e.code, details: e.details } : { error: e.message, code: e.code },
  { body: ErrorBodies.standard },
);

/** Account v1: `{success: false, code, message}`. */
export const presentV1: Presenter = Object.assign(
  (e: AppError) => ({ success: false, code: e.code, message: e.message }),
  { body: ErrorBodies.v1 },
);

/** Gateway account API: `{message}`. */
export const presentMessage: Presenter = Object.assign((e: AppError) => ({ message: e.message }), {
  body: ErrorBodies.message,
});

/** The only place that writes error bodies; internals (stacks, SQL) go to the log, never to the client. */
export function errorHandler(present: Presenter, logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const error = toAppError(err);
    const log = (req as { log?: Logger }).log ?? logger;
    if (error.status >= 500) log.error({ err: error.cause ?? err, code: error.code }, "request failed");
    else log.debug({ code: error.code }, error.message);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (error.headers) res.set(error.headers);
    res.status(error.status).json(present(error));
  };
}
