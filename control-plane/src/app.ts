import type { Db } from "@stake/db/client";
import { newId } from "@stake/db/ids";
import { createRedisKeys } from "@stake/db/redis/keys";
import { sql } from "drizzle-orm";
import express, { type Express } from "express";
import type { Redis } from "ioredis";
import { pinoHttp } from "pino-http";
import { createBearerAuth, createJwt } from "./auth/jwt.ts";
import { createPasswordHasher } from "./auth/password.ts";
import type { Config } from "./config.ts";
import { AppError, errorHandler, presentStandard } from "./errors.ts";
import { accountV1Area } from "./features/account-v1/routes.ts";
import { createAccountV1Service } from "./features/account-v1/service.ts";
import { createAccountsRepo } from "./features/account-v2/repo.ts";
import { accountV2Area } from "./features/account-v2/routes.ts";
import { createAccountService } from "./features/account-v2/service.ts";
import { createBeaconDataRepo } from "./features/beacon-data/repo.ts";
import { beaconDataArea } from "./features/beacon-data/routes.ts";
import { createBeaconDataService } from "./features/beacon-data/service.ts";
import { createBeaconClient } from "./features/beacon-provisioning/client.ts";
import { createProvisioningRepo } from "./features/beacon-provisioning/repo.ts";
import { beaconProvisioningArea } from "./features/beacon-provisioning/routes.ts";
import { createProvisioningService } from "./features/beacon-provisioning/service.ts";
import { createProvisionQueue } from "./features/beacon-provisioning/worker.ts";
import { dashboardArea } from "./features/dashboard/routes.ts";
import { createDashboardService } from "./features/dashboard/service.ts";
import { createRequestLimit } from "./features/gateway-account/limit.ts";
import { createGatewayAccountRepo } from "./features/gateway-account/repo.ts";
import { gatewayAccountArea } from "./features/gateway-account/routes.ts";
import { createGatewayAccountService } from "./features/gateway-account/service.ts";
import { createHyperliquidClient } from "./features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "./features/hyperliquid-delegation/repo.ts";
import { hyperliquidArea } from "./features/hyperliquid-delegation/routes.ts";
import { createHyperliquidService } from "./features/hyperliquid-delegation/service.ts";
import { createPolygonL1 } from "./features/polygon-rewards/client.ts";
import { createPolygonRepo } from "./features/polygon-rewards/repo.ts";
import { polygonRewardsArea } from "./features/polygon-rewards/routes.ts";
import { createPolygonRewardsService } from "./features/polygon-rewards/service.ts";
import { createValidatorShareResolver } from "./features/polygon-rewards/validator.ts";
import { createSolanaRpc } from "./features/solana-stake/client.ts";
import { createSolanaRewardsRepo } from "./features/solana-stake/repo.ts";
import { solanaStakeArea } from "./features/solana-stake/routes.ts";
import { createSolanaStakeService } from "./features/solana-stake/service.ts";
import { createSuiNode } from "./features/sui-rewards/client.ts";
import { createSuiIndexer } from "./features/sui-rewards/indexer.ts";
import { createSuiRepo } from "./features/sui-rewards/repo.ts";
import { suiRewardsArea } from "./features/sui-rewards/routes.ts";
import { createSuiRewardsService } from "./features/sui-rewards/service.ts";
import { createAbuseLimits, createKeyRateLimit } from "./http/abuse-limits.ts";
import { createApiKeyAuth } from "./http/api-key-auth.ts";
import { type Authenticators, readV1Key } from "./http/auth.ts";
import { readBasicAuth } from "./http/basic-auth.ts";
import { createMetrics, createMetricsAuth } from "./http/metrics.ts";
import { operationsArea } from "./http/operations.ts";
import { type Area, assertAllDeclared, registerAreas } from "./http/route.ts";
import { createUpstream } from "./http/upstream.ts";
import type { Logger } from "./log.ts";
import { docsAssets, openApiDocument } from "./openapi.ts";

export interface AppDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  redis: Redis;
  /** Check every reply against its declared schema (the tests turn this on). */
  checkResponses?: boolean;
}

const REQUEST_ID = /^[\w.-]{1,64}$/;

/**
 * The composition root of the control-plane API: each area's services built from config, with the
 * authenticators its routes declare. Every endpoint is declared in its feature's `routes.ts`.
 */
export function createAreas(deps: AppDeps): { areas: Area[]; authenticators: Authenticators } {
  const { config, db, redis } = deps;
  const keys = createRedisKeys(config.redisPrefix);
  const accountsRepo = createAccountsRepo(db);
  const passwords = createPasswordHasher(config.argon2);
  const limits = createAbuseLimits({ redis, keys, config });
  const accounts = createAccountService({ accounts: accountsRepo, passwords, limits });
  const gw = config.gatewayAccount;
  const jwt = createJwt({
    secret: gw.jwtSecret,
    issuer: "stake-gateway-account",
    audience: "stake-gateway-account-api",
    ttlSeconds: gw.jwtTtlSeconds,
  });
  const suiRepo = createSuiRepo(db);
  const polygonL1 = createPolygonL1(config.polygon);
  const stakingKeys = { keys: { findActiveKey: accounts.findActiveKey } };
  const stakeKeyAuth = createApiKeyAuth({ ...stakingKeys, headers: ["x-api-key", "api-key"] });
  // A stake-account request can cost hundreds of Solana RPC calls (history, balances): limited per key.
  const solanaKeyLimit = createKeyRateLimit({
    redis,
    keys,
    name: "solana",
    perMinute: config.solana.requestsPerKeyPerMinute,
  });
  const authenticators: Authenticators = {
    basic: async (req) => ({
      organisationId: (await accounts.authenticate(readBasicAuth(req), req.ip ?? "unknown")).id,
    }),
    "api-key": createApiKeyAuth({ ...stakingKeys, headers: ["api-key"] }),
    "x-api-key": createApiKeyAuth({ ...stakingKeys, headers: ["x-api-key"] }),
    "stake-key": async (req) => {
      const auth = await stakeKeyAuth(req);
      await solanaKeyLimit(auth.keyId);
      return auth;
    },
    "v1-key": readV1Key,
    bearer: createBearerAuth(jwt),
    metrics: createMetricsAuth(config.metricsToken),
  };
  const areas: Area[] = [
    accountV2Area({ accounts }),
    accountV1Area({
      accounts: createAccountV1Service({ accounts: accountsRepo, passwords, limits }),
    }),
    hyperliquidArea({
      service: createHyperliquidService({
        client: createHyperliquidClient({
          baseUrl: config.hyperliquid.apiUrl,
          upstream: createUpstream({ name: "Hyperliquid API", timeoutMs: config.hyperliquid.timeoutMs }),
        }),
        repo: createHyperliquidRepo({ redis, keys }),
        network: config.network,
        validator: config.hyperliquid.validatorAddress,
      }),
    }),
    solanaStakeArea({
      service: createSolanaStakeService({
        rpc: createSolanaRpc({
          url: config.solana.rpcUrl,
          upstream: createUpstream({ name: "Solana node", timeoutMs: config.solana.timeoutMs }),
        }),
        repo: createSolanaRewardsRepo(db),
        mevApiUrl: config.solana.mevApiUrl.replace(/\/+$/, ""),
      }),
    }),
    beaconProvisioningArea({
      service: createProvisioningService({
        repo: createProvisioningRepo(db),
        queue: createProvisionQueue(redis, config.redisPrefix),
        beacon: createBeaconClient({
          baseUrl: config.eth.beaconUrl,
          upstream: createUpstream({ name: "Beacon node", timeoutMs: config.eth.beaconTimeoutMs }),
        }),
        eth: config.eth,
      }),
    }),
    suiRewardsArea({
      service: createSuiRewardsService({
        repo: suiRepo,
        indexer: createSuiIndexer({
          node: createSuiNode(config.sui, config.network),
          repo: suiRepo,
          ...config.sui,
          logger: deps.logger,
        }),
        validators: config.sui.validators,
      }),
    }),
    polygonRewardsArea({
      service: createPolygonRewardsService({
        l1: polygonL1,
        repo: createPolygonRepo(db),
        resolver: createValidatorShareResolver({ l1: polygonL1, ...config.polygon }),
      }),
    }),
    beaconDataArea({
      service: createBeaconDataService({
        repo: createBeaconDataRepo(db),
        network: config.eth.network,
        provider: config.beaconData.provider,
      }),
    }),
    gatewayAccountArea({
      accounts: createGatewayAccountService({
        db,
        repo: createGatewayAccountRepo(db),
        passwords,
        limits,
        jwt,
        redis,
        keys,
      }),
      limit: createRequestLimit({ redis, keys, points: gw.rateLimit, windowSeconds: gw.rateWindowSeconds }),
    }),
    dashboardArea({ service: createDashboardService(config.dashboard) }),
  ];
  return { areas, authenticators };
}

/**
 * The control-plane HTTP app: the areas' route declarations registered in order, plus operations. Nothing
 * else adds a route (checked at start-up), and the OpenAPI document is generated from the same declarations.
 */
export function createApp(deps: AppDeps): Express {
  const { logger, db, redis } = deps;
  const { areas, authenticators } = createAreas(deps);
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
  registerAreas(app, areas, { authenticators, json, logger, checkResponses: deps.checkResponses ?? false });
  app.use("/docs/assets", docsAssets);
  app.use(() => {
    throw new AppError("NOT_FOUND", "No such endpoint");
  });
  app.use(errorHandler(presentStandard, logger));
  assertAllDeclared(app, areas);
  return app;
}
