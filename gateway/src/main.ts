import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { createDb } from "@stake/db/client";
import { loadOrExit } from "@stake/db/env";
import { createRedis } from "@stake/db/redis/client";
import { PUBLISH_EVERY_MS, publishDeadline, withdrawDeadline } from "@stake/db/redis/gateway-deadlines";
import { parseInvalidation } from "@stake/db/redis/invalidation";
import { createRedisKeys } from "@stake/db/redis/keys";
import { sql } from "drizzle-orm";
import { createKeyLookup, keyTags } from "./auth/authenticate.ts";
import { ReadThroughCache, subscribeInvalidations } from "./auth/cache.ts";
import { createLedger } from "./billing/ledger.ts";
import { type ReadyMessage, runPrimary } from "./cluster.ts";
import { type GatewayConfig, loadGatewayConfig } from "./config.ts";
import { createHandler } from "./handle.ts";
import { createGatewayLogger, type Logger } from "./log.ts";
import { createMetrics, joinCluster, METRICS_CONTENT_TYPE, noMetrics, serveMetrics } from "./metrics.ts";
import { createUpstreams } from "./proxy/upstreams.ts";
import { createProviderLookup, createRateLookup } from "./routing/providers.ts";
import { createGatewayServer } from "./server.ts";

/** Composition root: config → logger → db, redis (+ subscriber) → caches → upstreams → server. */
export async function start({ config, logger }: { config: Readonly<GatewayConfig>; logger: Logger }) {
  const pg = createDb(config.databaseUrl, { max: config.databasePoolSize, applicationName: "gateway" });
  const redis = createRedis(config, { name: "gateway", autoPipelining: false, logger });
  const subscriber = createRedis(config, { name: "gateway-sub", logger });
  const keys = createRedisKeys(config.redisPrefix);
  const metrics = config.metrics ? createMetrics(config.metrics) : undefined;
  if (metrics) for (const r of [redis, subscriber]) r.on("error", () => metrics.redisError("connection"));

  const stale = { maxStaleMs: config.cacheMaxStaleMs };
  const keyCache = new ReadThroughCache(config.cacheTtlMs, createKeyLookup(pg.db), {
    ...stale,
    tagsOf: keyTags,
  });
  const providerCache = new ReadThroughCache(config.cacheTtlMs, createProviderLookup(pg.db), stale);
  const rateLookup = createRateLookup(pg.db);
  const rateCache = new ReadThroughCache(config.cacheTtlMs, () => rateLookup(), stale);
  await subscribeInvalidations(subscriber, keys.gateway.invalidations, (message) => {
    const what = parseInvalidation(message);
    switch (what.kind) {
      case "key":
      case "user":
        return keyCache.dropTagged(message);
      case "provider":
        return providerCache.drop(what.id);
      case "rate":
        return rateCache.clear();
      case "all":
        keyCache.clear();
        providerCache.clear();
        rateCache.clear();
    }
  });

  // The settlement worker's reaper outwaits the deadline this gateway publishes (gateway-deadlines.ts).
  const instance = { instanceId: randomBytes(9).toString("base64url"), deadlineMs: config.requestDeadlineMs };
  await publishDeadline(redis, keys, instance);
  const republish = setInterval(() => {
    publishDeadline(redis, keys, instance).catch((err: unknown) =>
      logger.warn({ err }, "could not publish the request deadline"),
    );
  }, PUBLISH_EVERY_MS).unref();

  const upstreams = createUpstreams({
    connections: config.upstreamConnections,
    connectTimeoutMs: config.upstreamConnectTimeoutMs,
  });
  const { handle, upgrade } = createHandler({
    logger,
    metrics: metrics ?? noMetrics,
    keys: keyCache,
    providers: providerCache,
    rate: rateCache,
    ledger: createLedger(redis, keys, config.idempotencyTtlSeconds, {
      rate: config.partyRateLimit,
      failures: config.partyFailureLimit,
    }),
    upstreams,
    upstreamTimeoutMs: config.upstreamTimeoutMs,
    requestDeadlineMs: config.requestDeadlineMs,
    partyRateLimit: config.partyRateLimit,
  });
  const server = createGatewayServer({
    handle,
    upgrade,
    // Node's backstop a quarter after the deadline: a request the handler is timing gets the handler's own
    // 408 (the gateway's error body), never Node's bare one, even when a busy event loop runs its timer late.
    requestTimeoutMs: Math.floor(config.requestDeadlineMs * 1.25),
    ready: async () => {
      await Promise.all([pg.db.execute(sql`select 1`), redis.ping()]);
      if ((await rateCache.get("current")) === null)
        return { ok: false, reason: "no coin rate is set (operator: rate set <usd-per-coin>)" };
      return { ok: true };
    },
  });
  // Node's default backlog (511) overflows when a thousand clients connect at once, and every dropped
  // SYN costs its client a 1 s retransmit; the kernel caps this at net.core.somaxconn.
  await new Promise<void>((resolve) =>
    server.listen({ port: config.port, host: config.host, backlog: 4096 }, resolve),
  );
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`;
  logger.info({ url }, "gateway listening");
  // A process of GATEWAY_PROCESSES > 1 reports to its primary, which serves the sum (cluster.ts).
  let metricsServer: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  if (metrics && cluster.isWorker) joinCluster(metrics.registry);
  else if (metrics && config.metrics) {
    metricsServer = await serveMetrics({
      ...config.metrics,
      render: () => metrics.registry.metrics(),
      contentType: METRICS_CONTENT_TYPE,
    });
    logger.info({ url: metricsServer.url }, "gateway metrics listening");
  }

  return {
    url,
    server,
    /** GET /metrics of this process (single-process gateway with GATEWAY_METRICS_PORT only). */
    metricsUrl: metricsServer?.url,
    /** Drains (server.ts `drain`): stop accepting, answer and finalize what was received, then close. */
    async close() {
      await server.drain(config.requestDeadlineMs);
      metricsServer?.server.close();
      await upstreams.close();
      clearInterval(republish);
      await withdrawDeadline(redis, keys, instance.instanceId).catch(() => {});
      await Promise.allSettled([subscriber.quit(), redis.quit(), pg.close()]);
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const config = loadOrExit(() => loadGatewayConfig(process.env));
  const logger = createGatewayLogger(config.logLevel);
  if (config.processes > 1 && cluster.isPrimary) runPrimary(config, logger);
  else {
    const gateway = await start({ config, logger });
    if (cluster.isWorker) process.send?.({ ready: gateway.url } satisfies ReadyMessage);
    else process.stdout.write(`READY ${gateway.url}\n`);
    let stopping = false;
    // SIGINT reaches every process of a terminal's group, the primary's SIGTERM follows: drain once. Exit
    // once the last buffered log lines have left.
    const stop = () => {
      if (stopping) return;
      stopping = true;
      void gateway.close().then(() => logger.flush(() => process.exit(0)));
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  }
}
