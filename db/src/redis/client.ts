import { Cluster, type RedisOptions, Redis as Server } from "ioredis";

/**
 * The platform's Redis client: one server, or a Redis Cluster when `REDIS_CLUSTER_NODES` is set. Every
 * command the platform sends is valid on both (each touches keys of one hash slot, docs/operations.md,
 * "Redis Cluster"), so code takes this type and never asks which it has, except where a connection itself
 * is handled (the gateway's corked socket, a key scan), through the functions below.
 */
export type Redis = Server | Cluster;

/** Where Redis is: `redisUrl` alone (one server), or cluster seed nodes with `redisUrl`'s credentials and TLS. */
export interface RedisTarget {
  redisUrl: string;
  /** `host:port` of cluster nodes to discover the cluster from; empty or absent: not a cluster. */
  redisClusterNodes?: readonly string[] | undefined;
}

/**
 * ioredis client factory; no env reads. `maxRetriesPerRequest: null` is what BullMQ requires.
 * `autoPipelining: false` is for a client whose caller batches its own commands per event-loop turn (the
 * gateway's ledger), where ioredis's own batching would only add a second turn of delay. A bare URL is a
 * single server (tools and tests that start their own).
 */
export function createRedis(
  target: string | RedisTarget,
  options: {
    name?: string;
    forQueues?: boolean;
    autoPipelining?: boolean;
    /**
     * Gets the connection errors (each failed reconnect while Redis is away, at most one every 2 s once
     * backed off). Without it ioredis prints each one, stack and all, to stderr past the service's logger.
     */
    logger?: { warn: (fields: object, msg: string) => void };
  } = {},
): Redis {
  const { redisUrl, redisClusterNodes = [] } = typeof target === "string" ? { redisUrl: target } : target;
  const name = options.name ?? "staking-platform";
  const enableAutoPipelining = !options.forQueues && options.autoPipelining !== false;
  const connection: RedisOptions = {
    connectionName: name,
    lazyConnect: false,
    ...(options.forQueues ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 2 }),
  };
  const client = redisClusterNodes.length
    ? new Cluster(redisClusterNodes.map(hostPort), {
        redisOptions: { ...connection, ...credentials(redisUrl) },
        enableAutoPipelining,
        // Several processes start against a cluster that is still forming (the test harness's, a restart):
        // a node answering CLUSTERDOWN is asked again rather than failing the command at once.
        retryDelayOnClusterDown: 200,
      })
    : redisUrl.startsWith("unix:")
      ? new Server({ ...unixSocket(redisUrl), ...connection, enableAutoPipelining })
      : new Server(redisUrl, { ...connection, enableAutoPipelining });
  const { logger } = options;
  if (logger) client.on("error", (err) => logger.warn({ err, redis: name }, "redis connection error"));
  return client;
}

function hostPort(node: string) {
  const at = node.lastIndexOf(":");
  return { host: node.slice(0, at), port: Number(node.slice(at + 1)) };
}

/**
 * `unix:///path/to/redis.sock` (optionally `?db=N`): a Redis on the same host over its Unix socket, which
 * its file permissions guard (no password is taken). A lone gateway request makes two round trips, and
 * the socket is the other transport worth measuring for them (docs/benchmarks.md: cheaper per trip for
 * Redis, not yet faster for the gateway).
 */
function unixSocket(url: string): RedisOptions {
  const u = new URL(url);
  return {
    path: decodeURIComponent(u.pathname),
    ...(u.searchParams.get("db") ? { db: Number(u.searchParams.get("db")) } : {}),
  };
}

/** What a cluster's node connections take from REDIS_URL: its user, password and TLS (its host is not used). */
function credentials(url: string): RedisOptions {
  const u = new URL(url);
  return {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
  };
}

/**
 * The single-server connections behind a client: itself, or a cluster's masters. SCAN and socket-level work
 * (corking) happen per server; a cluster routes every other command itself.
 */
export function masters(redis: Redis): Server[] {
  return redis instanceof Cluster ? redis.nodes("master") : [redis];
}

/** Every key matching `pattern`, over each master of a cluster (SCAN sees one server's keys only). */
export async function scanKeys(redis: Redis, pattern: string, count = 1000): Promise<string[]> {
  // A cluster knows its masters once it is ready: a command waits for that (an empty list would say "no keys").
  if (redis instanceof Cluster && redis.status !== "ready") await redis.ping();
  const found: string[] = [];
  for (const server of masters(redis)) {
    let cursor = "0";
    do {
      const [next, batch] = await server.scan(cursor, "MATCH", pattern, "COUNT", count);
      cursor = next;
      found.push(...batch);
    } while (cursor !== "0");
  }
  return found;
}
