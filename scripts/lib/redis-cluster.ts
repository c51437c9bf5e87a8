import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { type LocalServer, type RedisDurability, startRedis, waitUntil } from "./infra.ts";

const run = promisify(execFile);

/** A project-local Redis Cluster of masters only, each node a `startRedis` server (owned: dies with us). */
export interface LocalRedisCluster {
  /** `host:port` of every node (REDIS_CLUSTER_NODES). */
  nodes: string[];
  /** The first node's URL (REDIS_URL beside REDIS_CLUSTER_NODES). */
  url: string;
  /** SIGKILLs every node (no shutdown, no final AOF rewrite). */
  kill(): void;
  /** Starts every node again from its folder (its AOF and nodes.conf) and waits until the cluster is ok. */
  restart(): Promise<void>;
  stop(): void;
  /** The nodes' process ids (to read their CPU time). */
  pids(): number[];
}

/**
 * Starts one redis-server per port in `dir/<port>/` with cluster mode on, joins them into a cluster of
 * masters (`redis-cli --cluster create`, the slots split evenly) and waits until every node reports the
 * cluster ok. Each node's cluster bus listens on `busPort`, given explicitly: the default (port + 10000)
 * does not exist for ports above 55535, where an ephemeral port may fall.
 */
export async function startRedisCluster(options: {
  dir: string;
  ports: { port: number; busPort: number }[];
  fsync?: RedisDurability;
  log?: (line: string) => void;
}): Promise<LocalRedisCluster> {
  const nodes = options.ports.map(({ port }) => `127.0.0.1:${port}`);
  let servers: (LocalServer & { pid(): number })[] = [];
  const startNodes = async () => {
    servers = await Promise.all(
      options.ports.map(({ port, busPort }) =>
        startRedis({
          dir: path.join(options.dir, String(port)),
          port,
          ...(options.fsync ? { fsync: options.fsync } : {}),
          args: [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-port",
            String(busPort),
            "--cluster-node-timeout",
            "5000",
          ],
        }),
      ),
    );
  };
  options.log?.(`starting a project-local Redis Cluster of ${nodes.length} masters in ${options.dir}`);
  await startNodes();
  await run("redis-cli", ["--cluster", "create", ...nodes, "--cluster-replicas", "0", "--cluster-yes"]);
  await clusterOk(options.ports.map((p) => p.port));
  return {
    nodes,
    url: `redis://${nodes[0]}`,
    kill() {
      for (const s of servers) process.kill(s.pid(), "SIGKILL");
    },
    async restart() {
      await startNodes();
      await clusterOk(options.ports.map((p) => p.port));
    },
    stop() {
      for (const s of servers) s.stop();
    },
    pids: () => servers.map((s) => s.pid()),
  };
}

/** Waits until every node answers `cluster_state:ok` (the slots are covered and the nodes agree). */
async function clusterOk(ports: number[]) {
  const ok = async (port: number) => {
    const info = await run("redis-cli", ["-p", String(port), "cluster", "info"]).catch(() => null);
    return info?.stdout.includes("cluster_state:ok") ?? false;
  };
  await waitUntil(
    async () => (await Promise.all(ports.map(ok))).every(Boolean),
    `the Redis Cluster on ${ports.join(", ")} to report cluster_state:ok`,
  );
}
