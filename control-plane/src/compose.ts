import type { Db } from "@stake/db/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import type { Redis } from "ioredis";
import { createJwt } from "./auth/jwt.ts";
import { createPasswordHasher } from "./auth/password.ts";
import type { BackgroundJob } from "./background-job.ts";
import type { Config } from "./config.ts";
import { createAccountV1Service } from "./features/account-v1/service.ts";
import { createAccountsRepo } from "./features/account-v2/repo.ts";
import { createAccountService } from "./features/account-v2/service.ts";
import { createBeaconApi, createExecutionApi } from "./features/beacon-data/client.ts";
import { createIndexer } from "./features/beacon-data/indexer.ts";
import { createIndexerRepo } from "./features/beacon-data/indexer-repo.ts";
import { beaconDataJobs, createRegistrationsQueue } from "./features/beacon-data/jobs.ts";
import { createBeaconDataRepo } from "./features/beacon-data/repo.ts";
import { createBeaconDataService } from "./features/beacon-data/service.ts";
import { createTracking } from "./features/beacon-data/tracking.ts";
import { createProvisionQueue, provisionJob } from "./features/beacon-provisioning/jobs.ts";
import { resolveNetwork } from "./features/beacon-provisioning/networks.ts";
import { createProvisionProcessor } from "./features/beacon-provisioning/provision.ts";
import { createProvisioningRepo } from "./features/beacon-provisioning/repo.ts";
import { createProvisioningService } from "./features/beacon-provisioning/service.ts";
import { createDashboardService } from "./features/dashboard/service.ts";
import { createGatewayAccountRepo } from "./features/gateway-account/repo.ts";
import { createGatewayAccountService } from "./features/gateway-account/service.ts";
import {
  createDrainQueue,
  createDrainRequest,
  gatewaySettlementJobs,
} from "./features/gateway-settlement/jobs.ts";
import { createHyperliquidClient } from "./features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "./features/hyperliquid-delegation/repo.ts";
import { createHyperliquidService } from "./features/hyperliquid-delegation/service.ts";
import { createPolygonL1 } from "./features/polygon-rewards/client.ts";
import { createPolygonSnapshotter } from "./features/polygon-rewards/indexer.ts";
import { createPolygonIndexerRepo } from "./features/polygon-rewards/indexer-repo.ts";
import { polygonRewardsJobs } from "./features/polygon-rewards/jobs.ts";
import { createPolygonRepo } from "./features/polygon-rewards/repo.ts";
import { createPolygonRewardsService } from "./features/polygon-rewards/service.ts";
import { createValidatorShareResolver } from "./features/polygon-rewards/validator.ts";
import { createSolanaRpc } from "./features/solana-stake/client.ts";
import { createSolanaRewardsRepo } from "./features/solana-stake/repo.ts";
import { createSolanaStakeService } from "./features/solana-stake/service.ts";
import { createSuiNode } from "./features/sui-rewards/client.ts";
import { createSuiFollows } from "./features/sui-rewards/follows.ts";
import { createSuiIndexer } from "./features/sui-rewards/indexer.ts";
import { createSuiIndexerRepo } from "./features/sui-rewards/indexer-repo.ts";
import { createDelegatorQueue, createDelegatorSync, suiRewardsJobs } from "./features/sui-rewards/jobs.ts";
import { createSuiRepo } from "./features/sui-rewards/repo.ts";
import { createSuiRewardsService } from "./features/sui-rewards/service.ts";
import { createAddressPolicy } from "./features/webhooks/address-policy.ts";
import { webhookJobs } from "./features/webhooks/jobs.ts";
import { createWebhooksRepo } from "./features/webhooks/repo.ts";
import { createSecretBox } from "./features/webhooks/secrets.ts";
import { createWebhooksService } from "./features/webhooks/service.ts";
import { createAbuseLimits, createKeyRateLimit } from "./http/abuse-limits.ts";
import { createUpstream } from "./http/upstream.ts";
import type { Logger } from "./log.ts";

export interface RootDeps {
  config: Readonly<Config>;
  logger: Logger;
  db: Db;
  /** The process's Redis connection (in the worker: settlement's, which fails a pass rather than waiting). */
  redis: Redis;
}

/**
 * The one composition root (docs/style.md §2): every node client, repository, service and chain follower
 * built once from configuration. The API process (app.ts) takes the services; the worker process
 * (worker.ts) takes `jobs`, which only then opens queue workers.
 */
export function compose(deps: RootDeps) {
  const { config, db, redis, logger } = deps;
  const keys = createRedisKeys(config.redisPrefix);
  const queuePrefix = keys.queuePrefix;
  const passwords = createPasswordHasher(config.argon2);
  const limits = createAbuseLimits({ redis, keys, config });
  const accountsRepo = createAccountsRepo(db);
  const jwt = createJwt({
    secret: config.gatewayAccount.jwtSecret,
    issuer: "stake-gateway-account",
    audience: "stake-gateway-account-api",
    ttlSeconds: config.gatewayAccount.jwtTtlSeconds,
  });

  // Ethereum: one Beacon API client and one network resolution for both beacon areas.
  const network = resolveNetwork(config.eth);
  const beacon = createBeaconApi({ url: config.eth.beaconUrl, timeoutMs: config.eth.beaconTimeoutMs });
  const beaconDataRepo = createBeaconDataRepo(db);
  const beaconIndexerRepo = createIndexerRepo(db, { offlineEpochs: config.webhooks.offlineEpochs });
  const beaconIndexerDeps = {
    beacon,
    execution: createExecutionApi({
      url: config.beaconData.executionUrl,
      timeoutMs: config.beaconData.executionTimeoutMs,
    }),
    repo: beaconIndexerRepo,
    depositContract: network.depositContract,
    maxEpochsPerStep: config.beaconData.maxEpochsPerStep,
    startEpoch: config.beaconData.startEpoch,
    backfillEpochs: config.beaconData.backfillEpochs,
    backfillEpochsPerStep: config.beaconData.backfillEpochsPerStep,
    logger: logger.child({ component: "beacon-indexer" }),
  };
  const beaconIndexer = createIndexer(beaconIndexerDeps);
  const registerLimit = createKeyRateLimit({
    redis,
    keys,
    name: "register",
    perMinute: config.beaconData.registerPerMinute,
  });
  const tracking = createTracking(db);
  const provisioningRepo = createProvisioningRepo(db);
  const provisionQueue = createProvisionQueue({ connection: redis, prefix: queuePrefix });

  const suiRepo = createSuiRepo(db);
  const suiFollows = createSuiFollows({
    redis,
    keys,
    perOrganisation: config.sui.followsPerOrganisation,
    expiryMs: config.sui.followExpiryMs,
  });
  const suiIndexer = createSuiIndexer({
    node: createSuiNode(config.sui, config.network),
    repo: createSuiIndexerRepo(db),
    ...config.sui,
    recentlyQueried: suiFollows.recent,
    logger: logger.child({ component: "sui-indexer" }),
  });
  const polygonL1 = createPolygonL1(config.polygon);
  const polygonRepo = createPolygonRepo(db);
  const polygonResolver = createValidatorShareResolver({ l1: polygonL1, ...config.polygon });
  const polygonIndexer = createPolygonSnapshotter({
    l1: polygonL1,
    repo: createPolygonIndexerRepo(db),
    resolver: polygonResolver,
    rootChain: config.polygon.rootChain,
    snapshotIntervalS: config.polygon.snapshotIntervalS,
    snapshotDepth: config.polygon.snapshotDepth,
    logger: logger.child({ component: "polygon-snapshots" }),
  });

  const webhookSecrets = createSecretBox(config.eth.keyEncryptionKey);

  const services = {
    accounts: createAccountService({
      accounts: accountsRepo,
      passwords,
      limits,
      maxActiveKeys: config.apiKeysPerOrganisation,
    }),
    accountsV1: createAccountV1Service({ accounts: accountsRepo, passwords, limits }),
    hyperliquid: createHyperliquidService({
      client: createHyperliquidClient({
        baseUrl: config.hyperliquid.apiUrl,
        upstream: createUpstream({ name: "Hyperliquid API", timeoutMs: config.hyperliquid.timeoutMs }),
      }),
      repo: createHyperliquidRepo({ redis, keys }),
      network: config.network,
      validator: config.hyperliquid.validatorAddress,
    }),
    solana: createSolanaStakeService({
      rpc: createSolanaRpc({
        url: config.solana.rpcUrl,
        upstream: createUpstream({ name: "Solana node", timeoutMs: config.solana.timeoutMs }),
      }),
      repo: createSolanaRewardsRepo(db),
      mevApiUrl: config.solana.mevApiUrl.replace(/\/+$/, ""),
    }),
    provisioning: createProvisioningService({
      repo: provisioningRepo,
      queue: provisionQueue,
      beacon,
      eth: config.eth,
      network,
      tracking,
      quota: config.eth.provisionQuota,
    }),
    sui: createSuiRewardsService({
      repo: suiRepo,
      syncDelegator: createDelegatorSync({
        queue: createDelegatorQueue({ connection: redis, prefix: queuePrefix }),
        waitMs: 10_000,
      }),
      follows: suiFollows,
      validators: config.sui.validators,
      indexFromEpoch: config.sui.fromEpoch,
      indexIntervalMs: config.sui.indexIntervalMs,
    }),
    polygon: createPolygonRewardsService({ l1: polygonL1, repo: polygonRepo, resolver: polygonResolver }),
    beaconData: createBeaconDataService({
      repo: beaconDataRepo,
      network: config.eth.network,
      provider: config.beaconData.provider,
      registrations: createRegistrationsQueue({ connection: redis, prefix: queuePrefix }),
      beacon,
      limit: (organisationId) => registerLimit(organisationId),
      maxRegistered: config.beaconData.registeredPerOrganisation,
    }),
    gatewayAccount: createGatewayAccountService({
      repo: createGatewayAccountRepo(db),
      passwords,
      limits,
      jwt,
      redis,
      keys,
      maxActiveKeys: config.gatewayAccount.keysPerUser,
      drainParty: createDrainRequest({
        queue: createDrainQueue({ connection: redis, prefix: queuePrefix }),
        waitMs: 5_000,
      }),
    }),
    dashboard: createDashboardService(config.dashboard),
    webhooks: createWebhooksService({
      repo: createWebhooksRepo(db),
      box: webhookSecrets,
      policy: createAddressPolicy(config.webhooks.allowed),
      config: config.webhooks,
    }),
  };

  /** The worker's jobs, on a queue connection (`createRedis(url, {forQueues: true})`). */
  function jobs(queues: Redis, options: { provisionConcurrency?: number } = {}): BackgroundJob[] {
    const q = { connection: queues, prefix: queuePrefix, logger };
    return [
      provisionJob({
        ...q,
        repo: provisioningRepo,
        run: createProvisionProcessor({ repo: provisioningRepo, eth: config.eth, network, tracking, logger }),
        concurrency: options.provisionConcurrency ?? 1,
      }),
      ...beaconDataJobs({
        ...q,
        indexer: beaconIndexer,
        rollUpRegistrations: beaconIndexer.rollUpRegistrations,
        intervalMs: config.beaconData.intervalMs,
      }),
      ...suiRewardsJobs({
        ...q,
        indexer: suiIndexer,
        cursorOf: async (address) => (await suiRepo.delegator(address))?.unstakeCursor ?? null,
        intervalMs: config.sui.indexIntervalMs,
      }),
      ...polygonRewardsJobs({ ...q, indexer: polygonIndexer, intervalMs: config.polygon.pollIntervalMs }),
      ...gatewaySettlementJobs({ db, redis, keys, ...config.settlement, logger, queues: q }),
      ...webhookJobs({ db, box: webhookSecrets, config: config.webhooks, logger }),
    ];
  }

  return {
    keys,
    limits,
    passwords,
    jwt,
    services,
    followers: { beaconData: beaconIndexer, sui: suiIndexer, polygon: polygonIndexer },
    /** The beacon indexer's parts (the benchmark times them one by one). */
    beaconIndexerDeps,
    jobs,
  };
}

export type Root = ReturnType<typeof compose>;
