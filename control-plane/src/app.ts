import type { Db } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import type { Redis } from "@stake/db/redis/client";
import { sql } from "drizzle-orm";
import express, { type Express, type Request } from "express";
import { pinoHttp } from "pino-http";
import { createBearerAuth } from "./auth/jwt.ts";
import { compose, type Root } from "./compose.ts";
import type { Config } from "./config.ts";
import { AppError, errorHandler, presentStandard } from "./errors.ts";
import { consoleToken } from "./features/console/sessions.ts";
import { createKeyRateLimit } from "./http/abuse-limits.ts";
import { createApiKeyAuth, type StakingAuth } from "./http/api-key-auth.ts";
import { type Authenticators, readV1Key } from "./http/auth.ts";
import { readBasicAuth } from "./http/basic-auth.ts";
import { clientAddressKey } from "./http/client-address.ts";
import { createMetrics, createMetricsAuth } from "./http/metrics.ts";
import { operationsArea } from "./http/operations.ts";
import type { ExampleRecorder } from "./http/route.ts";
import { type Area, assertAllDeclared, registerAreas, registerWrongMethods } from "./http/route.ts";
import type { Logger } from "./log.ts";
import { docsAssets, openApiDocument } from "./openapi.ts";

export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  redis: Redis;
  /** Check every reply against its declared schema (the tests turn this on). */
  checkResponses?: boolean;
  /** Records real exchanges as OpenAPI examples (the tests, under `npm run openapi:examples`). */
  recordExamples?: ExampleRecorder | undefined;
  /** The composition root's output (main.ts passes it; built from the rest when absent). */
  root?: Root;
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

/**
 * The control-plane API's areas (those of `config.areas`, composed by compose.ts), with the authenticators
 * their routes declare. Every endpoint is declared in its feature's `routes.ts`.
 */
export async function createAreas(deps: AppDeps): Promise<{ areas: Area[]; authenticators: Authenticators }> {
  const { config, redis } = deps;
  const root = deps.root ?? (await compose(deps));
  const { keys, accounts, jwt } = root.core;
  const stakingKeys = {
    keys: { findActiveKey: accounts.findActiveKey },
    sessions: root.core.consoleSessions,
  };
  // Every API-key area is limited per key (docs/architecture.md §11): Solana's stake-account area under its
  // own budget, since one of its requests can cost hundreds of RPC calls, the others under one shared one.
  const limited = (
    authenticate: (req: Request) => Promise<StakingAuth>,
    limit: ReturnType<typeof createKeyRateLimit>,
  ) => {
    return async (req: Request): Promise<StakingAuth> => {
      const auth = await authenticate(req);
      req.res?.set(await limit(auth.keyId));
      return auth;
    };
  };
  const keyLimit = createKeyRateLimit({
    redis,
    keys,
    name: "api-key",
    perMinute: config.apiKeyRequestsPerMinute,
  });
  const solanaKeyLimit = createKeyRateLimit({
    redis,
    keys,
    name: "solana",
    perMinute: config.solana.requestsPerKeyPerMinute,
  });
  const authenticators: Authenticators = {
    basic: async (req) => {
      // The console manages keys with its session, so the password is asked once, not kept by the page.
      const session = consoleToken(req.headers.authorization);
      if (session !== undefined) {
        const principal = await root.core.consoleSessions.resolve(session);
        if (!principal) throw new AppError("INVALID_SESSION", "Console session expired or signed out");
        return { organisationId: principal.organisationId };
      }
      const ip = clientAddressKey(req.ip ?? "unknown");
      return { organisationId: (await accounts.authenticate(readBasicAuth(req), ip)).id };
    },
    // Every staking area accepts both header names: the scheme names the spec's one first.
    "api-key": limited(createApiKeyAuth({ ...stakingKeys, headers: ["api-key", "x-api-key"] }), keyLimit),
    "x-api-key": limited(createApiKeyAuth({ ...stakingKeys, headers: ["x-api-key", "api-key"] }), keyLimit),
    "stake-key": limited(
      createApiKeyAuth({ ...stakingKeys, headers: ["x-api-key", "api-key"] }),
      solanaKeyLimit,
    ),
    "v1-key": readV1Key,
    bearer: createBearerAuth(jwt),
    metrics: createMetricsAuth(config.metricsToken),
  };
  return { areas: [...root.routes], authenticators };
}

/**
 * The control-plane HTTP app: the areas' route declarations registered in order, plus operations. Nothing
 * else adds a route (checked at start-up), and the OpenAPI document is generated from the same declarations.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { logger, db, redis } = deps;
  const { areas, authenticators } = await createAreas(deps);
  const metrics = createMetrics();
  let document: string | undefined;
  areas.push(
    operationsArea({
      readiness: async () => {
        const checks = await Promise.allSettled([db.execute(sql`select 1`), redis.ping()]);
        const [postgres = "unreachable", rd = "unreachable"] = checks.map((c) =>
          c.status === "fulfilled" ? ("ok" as const) : ("unreachable" as const),
        );
        const status = postgres === "ok" && rd === "ok" ? "ok" : "unavailable";
        return { status, postgres, redis: rd };
      },
      metrics: metrics.serve,
      openapi: () => {
        document ??= JSON.stringify(openApiDocument(areas));
        return document;
      },
    }),
  );

  const app = express();
  app.disable("x-powered-by");
  // Express hashes every reply body (SHA-1) for a weak ETag that no client of this API sends back: 1.4 ms
  // per 1.5 MB reply of rewards/epoch (bench profile), for nothing.
  app.disable("etag");
  app.set("trust proxy", deps.config.trustProxy);
  app.use(
    pinoHttp({
      logger,
      genReqId: (req, res) => {
        const given = req.headers["request-id"];
        const id = typeof given === "string" && REQUEST_ID.test(given) ? given : newId("request");
        res.setHeader("request-id", id);
        return id;
      },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
    }),
  );
  app.use(metrics.track);
  // Any content type is read as JSON, so `curl -d '{...}'` works without a Content-Type header.
  const json = express.json({ limit: deps.config.jsonBodyLimit, type: () => true });
  registerAreas(app, areas, {
    authenticators,
    json,
    logger,
    checkResponses: deps.checkResponses ?? false,
    recordExamples: deps.recordExamples,
  });
  registerWrongMethods(app, areas, logger);
  app.use("/docs/assets", docsAssets);
  app.use(() => {
    throw new AppError("NOT_FOUND", "No such endpoint");
  });
  app.use(errorHandler(presentStandard, logger));
  assertAllDeclared(app, areas);
  return app;
}
