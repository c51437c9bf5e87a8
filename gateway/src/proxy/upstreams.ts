import { Pool } from "undici";

/** One pooled keep-alive dispatcher per provider origin, created on first use and closed on shutdown. */
export function createUpstreams(options: { connections: number; connectTimeoutMs: number }) {
  const pools = new Map<string, Pool>();
  return {
    get(origin: string): Pool {
      let pool = pools.get(origin);
      if (!pool) {
        pool = new Pool(origin, {
          connections: options.connections,
          connect: { timeout: options.connectTimeoutMs },
          keepAliveTimeout: 10_000,
          pipelining: 1,
        });
        pools.set(origin, pool);
      }
      return pool;
    },
    async close(): Promise<void> {
      await Promise.allSettled([...pools.values()].map((p) => p.close()));
      pools.clear();
    },
  };
}

export type Upstreams = ReturnType<typeof createUpstreams>;
