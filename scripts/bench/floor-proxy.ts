import { createRedis } from "@stake/db/redis/client";
import { Pool } from "undici";
import { listen, passThrough } from "./pass-through.ts";

/**
 * The floor of a paid request's design, measured beside the gateway (docs/benchmarks.md, "a lone request"):
 * the bare dispatch proxy (bare-proxy.ts) plus the two Redis round trips a paid request cannot do without,
 * each a script that does nothing, on a client made as the gateway makes its own (ioredis, no
 * auto-pipelining). The first is awaited before the provider is called (the reservation); the second is
 * written when the provider's headers arrive, its reply never awaited by the client (the finalize). No
 * auth, no routing, no accounting, no log: whatever the gateway spends beyond this is its own work.
 *   tsx scripts/bench/floor-proxy.ts <upstream url> <redis url>
 */
const upstream = new Pool(process.argv[2] as string, { connections: 256 });
const redis = createRedis(process.argv[3] as string, { name: "bench-floor-proxy", autoPipelining: false });
const sha = String(await redis.script("LOAD", "return 1"));
const trip = () => redis.evalsha(sha, 0);

listen((req, res) => {
  req.resume();
  trip().then(
    () => passThrough(upstream, req, res, () => void trip().catch(() => {})),
    () => res.writeHead(503).end(),
  );
});
