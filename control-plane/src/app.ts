import type { Db } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { createRedisKeys } from "@stake/db/redis/keys";
import { sql } from "drizzle-orm";
import express, { type Express, type Router } from "express";
import type { Redis } from "ioredis";
import { pinoHttp } from "pino-http";
import { createJwt } from "./auth/jwt.ts";
import { createPasswordHasher } from "./auth/password.ts";
import type { Config } from "./config.ts";
import {
  AppError,
  errorHandler,
  type Presenter,
  presentMessage,
  presentStandard,
  presentV1,
} from "./errors.ts";
import { createAccountV1Router } from "./features/account-v1/routes.ts";
import { createAccountV1Service } from "./features/account-v1/service.ts";
import { createAccountsRepo } from "./features/account-v2/repo.ts";
import { createAccountV2Router } from "./features/account-v2/routes.ts";
import { createAccountService } from "./features/account-v2/service.ts";
import { createBeaconClient } from "./features/beacon-provisioning/client.ts";
import { createProvisioningRepo } from "./features/beacon-provisioning/repo.ts";
import { createBeaconProvisioningRouter } from "./features/beacon-provisioning/routes.ts";
import { createProvisioningService } from "./features/beacon-provisioning/service.ts";
import { createProvisionQueue } from "./features/beacon-provisioning/worker.ts";
import { createRequestLimit } from "./features/gateway-account/limit.ts";
import { createGatewayAccountRepo } from "./features/gateway-account/repo.ts";
import { createGatewayAccountRouters } from "./features/gateway-account/routes.ts";
import { createGatewayAccountService } from "./features/gateway-account/service.ts";
import { createHyperliquidClient } from "./features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "./features/hyperliquid-delegation/repo.ts";
import { createHyperliquidRouter } from "./features/hyperliquid-delegation/routes.ts";
import { createHyperliquidService } from "./features/hyperliquid-delegation/service.ts";
import { createSolanaStakeArea } from "./features/solana-stake/area.ts";
import { createAbuseLimits } from "./http/abuse-limits.ts";
import { createApiKeyAuth } from "./http/api-key-auth.ts";
import { createMetrics } from "./http/metrics.ts";
import type { Logger } from "./log.ts";
import { createDocsRouter } from "./openapi.ts";

export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  redis: Redis;
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

/**
 * Builds the control-plane HTTP app. Each spec area is mounted at its spec base path with its own JSON
 * parser and error presenter, so a body error is rendered in that area's format. Order matters where
 * prefixes nest: /api/v1/staking before /api/v1.
 */
export function createApp(deps: AppDeps): Express {
  const { config, logger, db, redis } = deps;
  const keys = createRedisKeys(config.redisPrefix);
  const accountsRepo = createAccountsRepo(db);
  const passwords = createPasswordHasher(config.argon2);
  const limits = createAbuseLimits({ redis, keys, config });

  const metrics = createMetrics();
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", config.trustProxy);
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
  app.get("/metrics", metrics.serve);
  app.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  app.use(createDocsRouter());
  app.get("/readyz", async (_req, res) => {
    const checks = await Promise.allSettled([db.execute(sql`select 1`), redis.ping()]);
    const [pg, rd] = checks.map((c) => (c.status === "fulfilled" ? "ok" : "unreachable"));
    const ready = pg === "ok" && rd === "ok";
    res.status(ready ? 200 : 503).json({ status: ready ? "ok" : "unavailable", postgres: pg, redis: rd });
  });

  // Any content type is read as JSON, so `curl -d '{...}'` works without a Content-Type header.
  const json = express.json({ limit: config.jsonBodyLimit, type: () => true });
  const mount = (path: string, router: Router, present: Presenter) =>
    app.use(path, json, router, errorHandler(present, logger));

  mount(
    "/api/v1/staking",
    createHyperliquidRouter({
      service: createHyperliquidService({
        client: createHyperliquidClient({
          baseUrl: config.hyperliquid.apiUrl,
          timeoutMs: config.hyperliquid.timeoutMs,
        }),
        repo: createHyperliquidRepo({ redis, keys }),
        network: config.network,
        validator: config.hyperliquid.validatorAddress,
      }),
      auth: createApiKeyAuth({ accounts: accountsRepo, headers: ["api-key"] }),
    }),
    presentStandard,
  );
  mount(
    "/user",
    createAccountV2Router({ accounts: createAccountService({ accounts: accountsRepo, passwords, limits }) }),
    presentStandard,
  );
  mount(
    "/api/public",
    createAccountV1Router({
      accounts: createAccountV1Service({ accounts: accountsRepo, passwords, limits }),
    }),
    presentV1,
  );

  // Gateway account API: each exact prefix is mounted (other areas live under /api too).
  const gw = config.gatewayAccount;
  const jwt = createJwt({
    secret: gw.jwtSecret,
    issuer: "stake-gateway-account",
    audience: "stake-gateway-account-api",
    ttlSeconds: gw.jwtTtlSeconds,
  });
  const gwRouters = createGatewayAccountRouters({
    accounts: createGatewayAccountService({
      db,
      repo: createGatewayAccountRepo(db),
      passwords,
      jwt,
      redis,
      keys,
    }),
    jwt,
    limit: createRequestLimit({ redis, keys, points: gw.rateLimit, windowSeconds: gw.rateWindowSeconds }),
  });
  mount("/api/onboarding", gwRouters.onboarding, presentMessage);
  mount("/api/party", gwRouters.party, presentMessage);
  mount("/api/api-key", gwRouters.apiKey, presentMessage);
  mount("/api/balance", gwRouters.balance, presentMessage);
  mount("/api/reservations", gwRouters.reservations, presentMessage);
  mount("/api/health", gwRouters.health, presentMessage);
  const solana = createSolanaStakeArea({ config, db, accounts: accountsRepo });
  mount("/api/v1", solana, presentStandard);
  mount("/v1", solana, presentStandard);

  const provisioningRepo = createProvisioningRepo(db);
  mount(
    "/api",
    createBeaconProvisioningRouter({
      repo: provisioningRepo,
      auth: createApiKeyAuth({ accounts: accountsRepo, headers: ["api-key"] }),
      service: createProvisioningService({
        repo: provisioningRepo,
        queue: createProvisionQueue(redis, config.redisPrefix),
        beacon: createBeaconClient(config.eth.beaconUrl),
        eth: config.eth,
      }),
    }),
    presentStandard,
  );

  app.use(() => {
    throw new AppError("NOT_FOUND", "No such endpoint");
  });
  app.use(errorHandler(presentStandard, logger));
  return app;
}
