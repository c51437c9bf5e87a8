import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ErrorRequestHandler, Express, Request, RequestHandler, Response } from "express";
import type { z } from "zod";
import {
  AppError,
  type ErrorCode,
  errorHandler,
  type Presenter,
  parseOrThrow,
  toAppError,
} from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Authenticators, Principal, Security } from "./auth.ts";

/**
 * One declaration per endpoint: method, spec path, security, request and response schemas and handler.
 * The Express registration (`registerAreas`) and the OpenAPI document (`openapi.ts`) are both generated
 * from these, and `assertAllDeclared` refuses an app that has a route no declaration describes. Paths are
 * written out in full, in OpenAPI template syntax, so searching for a spec path finds its code.
 */
export type Method = "get" | "post" | "delete";

export interface ResponseSpec {
  description: string;
  /** The body's schema; absent for an empty body (204) or a non-JSON one (`type` on the reply). */
  body?: z.ZodType;
}

export interface Reply {
  status: number;
  body?: unknown;
  /** A non-JSON body (e.g. `text/html`): sent as is with this content type; a `Readable` is streamed. */
  type?: string;
  headers?: Record<string, string>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface HandlerInput<S extends Security | undefined, P, Q, B> {
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
  auth: S extends Security ? Principal<S> : undefined;
  /** The client's address as Express resolved it behind the configured proxies. */
  ip: string;
  req: Request;
}

export interface RouteSpec<
  S extends Security | undefined = Security | undefined,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  /** Spec path in OpenAPI syntax (`/user/api-keys/{keyId}`). */
  path: string;
  /** Further paths that serve the same endpoint (e.g. the spec samples' `/v1/...`); not documented. */
  aliases?: readonly string[];
  summary: string;
  security?: S;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The replies particular to this endpoint: its successes and its own refusals (404, 409, 422, …). The
   * refusals that follow from the declaration (`responsesOf`) are added; listing one here only rewords it.
   */
  responses: Record<number, ResponseSpec>;
  /** Calls a chain node or third-party API while answering: 502 (unreachable) and 504 (timed out). */
  upstream?: boolean;
  /**
   * Reads what an indexer writes: 503 NOT_INDEXED_YET with Retry-After until it has, and 503 CHAIN_MISMATCH
   * while the area's node serves another chain than the indexed one (docs/architecture.md §13).
   */
  indexed?: boolean;
  /** Limited per client beyond what its security implies: 429 with Retry-After. */
  rateLimited?: boolean;
  handler: (input: HandlerInput<S, P, Q, B>) => Promise<Reply> | Reply;
}

/** A declared route, its handler's types erased so routes of any shape fit in one list. */
export interface Route extends Omit<RouteSpec, "handler"> {
  handler: (
    input: HandlerInput<
      Security | undefined,
      z.ZodType | undefined,
      z.ZodType | undefined,
      z.ZodType | undefined
    >,
  ) => Promise<Reply> | Reply;
}

/** Declares an endpoint; the generics type the handler's params, query, body and principal. */
export function route<
  S extends Security | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<S, P, Q, B>): Route {
  return spec as unknown as Route;
}

/** One spec area: its routes, its OpenAPI tag, the error body format and middleware it shares. */
export interface Area {
  tag: string;
  present: Presenter;
  /** Run before authentication on every route of the area (e.g. a per-client rate limit). */
  use?: RequestHandler[];
  /** Every route of the area is limited per client (`use` holds the limiter): 429 on each. */
  rateLimited?: boolean;
  routes: Route[];
}

/** Schemes whose check can refuse a known caller (organisation not approved, address out of scope, not loopback). */
const FORBIDS: ReadonlySet<Security> = new Set([
  "basic",
  "api-key",
  "x-api-key",
  "stake-key",
  "v1-key",
  "metrics",
]);
/** Schemes limited per caller: failed password checks (basic) or requests per API key (the rest). */
const LIMITS: ReadonlySet<Security> = new Set(["basic", "api-key", "x-api-key", "stake-key"]);

/**
 * Every reply a route can give: the error responses its declaration implies (input → 400, security → 401,
 * 403 and 429 as the scheme can refuse, `upstream` → 502/504, `indexed` → 503, a limited area → 429), then
 * its own `responses`, which may reword any of them. The refusals of `ANY_ROUTE` are never listed.
 */
export function responsesOf(
  r: Route,
  area: Pick<Area, "present" | "rateLimited">,
): Record<number, ResponseSpec> {
  const error = errorResponses(area.present.body);
  const derived: Record<number, ResponseSpec> = {};
  if (r.body) derived[400] = error("malformed JSON, or a field failed validation (details per field)");
  else if (r.params || r.query) derived[400] = error("a parameter failed validation (details per field)");
  if (r.security) derived[401] = error("missing or invalid credentials");
  if (r.security && FORBIDS.has(r.security))
    derived[403] = error(
      "the caller may not do this (organisation not approved, or outside the key's scope)",
    );
  if (area.rateLimited || r.rateLimited || (r.security && LIMITS.has(r.security)))
    derived[429] = error("too many requests; retry after Retry-After");
  if (r.upstream) {
    derived[502] = error("the upstream node is unreachable or answered an error");
    derived[504] = error("the upstream node timed out");
  }
  if (r.indexed)
    derived[503] = error(
      "not indexed yet (NOT_INDEXED_YET), or the area's node serves another chain than the indexed one (CHAIN_MISMATCH); retry after Retry-After",
    );
  return { ...derived, ...r.responses };
}

/** `/user/api-keys/{keyId}` → `/user/api-keys/:keyId`. */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

export interface RegisterOptions {
  authenticators: Authenticators;
  /** Body parser run first on every route, so a malformed body is rendered in the route's area format. */
  json: RequestHandler;
  logger: Logger;
  /** Check every reply against its declared schema (tests): a mismatch is a 500 with the reason logged. */
  checkResponses?: boolean;
  /** Records real exchanges as the OpenAPI document's examples (`npm run openapi:examples`); off: absent. */
  recordExamples?: ExampleRecorder | undefined;
}

/**
 * Wraps one route's replies (http/examples.ts builds it); registerAreas puts it first in the route's chain
 * when recording is on. Declared here, beside its one caller, so examples.ts depends on this module and not
 * the other way round.
 */
export type ExampleRecorder = (r: Route, declared: Record<number, ResponseSpec>) => RequestHandler;

function handle(r: Route, declared: Record<number, ResponseSpec>, options: RegisterOptions): RequestHandler {
  const authenticate = r.security === undefined ? undefined : options.authenticators[r.security];
  return async (req: Request, res: Response) => {
    // Authentication comes before input validation: an unauthenticated caller learns nothing of the schema.
    const auth = authenticate ? await authenticate(req) : undefined;
    const input = {
      params: r.params ? parseOrThrow(r.params, req.params, "params") : undefined,
      query: r.query ? parseOrThrow(r.query, req.query, "query") : undefined,
      body: r.body ? parseOrThrow(r.body, req.body) : undefined,
      auth,
      ip: req.ip ?? "unknown",
      req,
    };
    const reply = await r.handler(input);
    if (options.checkResponses) checkReply(r, declared, reply);
    if (reply.headers) res.set(reply.headers);
    res.status(reply.status);
    if (reply.body instanceof Readable) await streamTo(reply.body, res.type(reply.type ?? "text/plain"));
    else if (reply.type !== undefined) res.type(reply.type).send(reply.body);
    else if (reply.body === undefined) res.end();
    else res.json(reply.body);
  };
}

/**
 * Streams a body of any size with backpressure: memory stays one chunk however long the body. A client
 * gone mid-way is not a fault; any other failure after the headers reaches the error handler, which can
 * only cut the connection.
 */
async function streamTo(body: Readable, res: Response): Promise<void> {
  try {
    await pipeline(body, res);
  } catch (err) {
    if ((err as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
  }
}

function checkReply(r: Route, declared: Record<number, ResponseSpec>, reply: Reply): void {
  const where = `${r.method.toUpperCase()} ${r.path} ${reply.status}`;
  const spec = declared[reply.status];
  const issue = !spec ? "status not declared" : spec.body?.safeParse(reply.body).error?.issues[0];
  if (issue === undefined) return;
  const reason = typeof issue === "string" ? issue : `${issue.path.join(".")}: ${issue.message}`;
  // The client sees the generic 500; the reason goes to the log through the error's cause.
  throw new AppError("INTERNAL_SERVER_ERROR", "Internal server error", {
    cause: new Error(`reply does not match its declaration (${where}): ${reason}`),
  });
}

/**
 * Refusals any route can give whatever it declares, left out of every route's list: the body parser's
 * (it runs on every route, a GET's stray body included), Postgres or Redis out of reach, and the fault.
 */
const ANY_ROUTE: ReadonlySet<ErrorCode> = new Set([
  "INVALID_JSON",
  "BAD_REQUEST",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "SERVICE_UNAVAILABLE",
  "INTERNAL_SERVER_ERROR",
]);

/**
 * Under `checkResponses`, an error whose status the route does not declare becomes the generic 500, the
 * reason logged: a refusal nobody documented fails the test that provoked it.
 */
function checkErrors(r: Route, declared: Record<number, ResponseSpec>, errors: ErrorRequestHandler) {
  const checked: ErrorRequestHandler = (err, req, res, next) => {
    const { code, status } = toAppError(err);
    if (ANY_ROUTE.has(code) || declared[status]) return errors(err, req, res, next);
    const cause = new Error(
      `${r.method.toUpperCase()} ${r.path} answered ${status}, a status it does not declare`,
      {
        cause: err,
      },
    );
    return errors(new AppError("INTERNAL_SERVER_ERROR", "Internal server error", { cause }), req, res, next);
  };
  return checked;
}

/** Registers every route of every area on the app, in order, each with its area's error presenter. */
export function registerAreas(app: Express, areas: readonly Area[], options: RegisterOptions): void {
  for (const area of areas) {
    const errors = errorHandler(area.present, options.logger);
    for (const r of area.routes) {
      const declared = responsesOf(r, area);
      const onError = options.checkResponses ? checkErrors(r, declared, errors) : errors;
      const handlers = [options.json, ...(area.use ?? []), handle(r, declared, options), onError];
      if (options.recordExamples) handlers.unshift(options.recordExamples(r, declared));
      for (const path of [r.path, ...(r.aliases ?? [])]) app[r.method](expressPath(path), ...handlers);
    }
  }
}

/**
 * A known path asked with a method it does not have answers 405 with `Allow` (RFC 9110 §15.5.6) in the error
 * format of the area that owns the path, instead of the 404 of an unknown path. Registered after every
 * route, so it only sees what no route took; OPTIONS gets 204 with the same `Allow`.
 */
export function registerWrongMethods(app: Express, areas: readonly Area[], logger: Logger): void {
  const byPath = new Map<string, { methods: Set<string>; present: Area["present"] }>();
  for (const area of areas)
    for (const r of area.routes)
      for (const path of [r.path, ...(r.aliases ?? [])].map(expressPath)) {
        const entry = byPath.get(path) ?? { methods: new Set<string>(), present: area.present };
        entry.methods.add(r.method.toUpperCase());
        // Express answers HEAD with the GET route.
        if (r.method === "get") entry.methods.add("HEAD");
        byPath.set(path, entry);
      }
  for (const [path, { methods, present }] of byPath) {
    const allow = [...methods, "OPTIONS"].join(", ");
    const refuse: RequestHandler = (req, res) => {
      if (req.method === "OPTIONS") return void res.set("Allow", allow).status(204).end();
      throw new AppError("METHOD_NOT_ALLOWED", `${req.method} is not allowed here; allowed: ${allow}`, {
        headers: { Allow: allow },
      });
    };
    WRONG_METHOD.add(refuse);
    app.all(path, refuse, errorHandler(present, logger));
  }
}

/** The 405 handlers: every method's route on a declared path, not endpoints of their own. */
const WRONG_METHOD = new WeakSet<RequestHandler>();

interface Layer {
  route?: { path: string; methods: Record<string, boolean>; stack?: { handle: unknown }[] };
  handle?: { stack?: Layer[] };
}

/**
 * Refuses an app with a route that no declaration describes (a handler added with `app.get` or a nested
 * Router). Middleware without a route (body parsers, static files) is not an endpoint and is not checked.
 */
export function assertAllDeclared(app: Express, areas: readonly Area[]): void {
  const declared = new Set(
    areas.flatMap((a) =>
      a.routes.flatMap((r) => [r.path, ...(r.aliases ?? [])].map((p) => `${r.method} ${expressPath(p)}`)),
    ),
  );
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        if (layer.route.stack?.some((l) => WRONG_METHOD.has(l.handle as RequestHandler))) continue;
        for (const [method, on] of Object.entries(layer.route.methods)) {
          const key = `${method} ${layer.route.path}`;
          if (on && method !== "_all" && !declared.has(key)) {
            throw new Error(`route without a declaration: ${method.toUpperCase()} ${layer.route.path}`);
          }
        }
      } else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
}

/** Documented error responses of an area: `const error = errorResponses(ErrorBodies.standard)`. */
export const errorResponses =
  (body: z.ZodType) =>
  (description: string): ResponseSpec => ({ description, body });
