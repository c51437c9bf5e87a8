/**
 * `npm run bench:header-fields`: what the five fields the gateway adds to every answer (RateLimit-Policy,
 * RateLimit, request-id, gateway-reservation-id, gateway-cost; docs/gateway.md) cost by themselves, apart
 * from the rest of the gateway. Two plain Node servers answer the bench's 1 KiB GET, one with the
 * upstream's fields only and one with the five added; both make the five values per answer, as the
 * gateway does, so only sending them differs. Both are driven alternately at c100 by the bench's undici
 * load generator, in rounds. Prints the medians of each server's CPU per answer, of the client's (parsing
 * what it is sent), and of req/s, and the paired differences.
 * On a two-core machine that runs the client beside the server, the client's share is taken from the
 * server's cores, as it is in `bench:gateway` (docs/benchmarks.md); pinned rounds (BENCH_PIN:
 * on, off, both) put the client on CPU 1 and the servers on CPU 0, so the server's figure is its own.
 *   [BENCH_ROUNDS=8] [BENCH_SECONDS=4] [BENCH_PIN=both]
 */
import { createServer } from "node:http";
import { availableParallelism } from "node:os";
import { formatCoins } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { rateLimitPolicy, rateLimitState } from "@stake/db/ratelimit-fields";
import { load, median, pin, type Result, startProcess } from "./targets.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "8");
const SECONDS = Number(process.env.BENCH_SECONDS ?? "4");
const PIN = process.env.BENCH_PIN ?? "both";
const PIN_MODES = PIN === "both" ? [false, true] : [PIN === "on"];

/** One server; with `fields`, the gateway's five on every answer. Prints `READY <url>`. */
function serve(fields: boolean) {
  const body = Buffer.alloc(1024, 120);
  const policy = rateLimitPolicy("party", 1_000_000_000, 1000);
  let left = 1_000_000_000;
  const server = createServer((req, res) => {
    req.resume();
    const headers = ["content-type", "application/octet-stream", "content-length", "1024"];
    // Made for both servers, as the gateway makes them whether or not it sends them (the ids name the
    // request and its reservation in the access log and in Redis): only sending them differs.
    const values = [
      policy,
      rateLimitState("party", --left, 1000),
      newId("request"),
      newId("reservation"),
      formatCoins(1_000_000n),
    ] as const;
    if (fields)
      headers.push(
        "ratelimit-policy",
        values[0],
        "ratelimit",
        values[1],
        "request-id",
        values[2],
        "gateway-reservation-id",
        values[3],
        "gateway-cost",
        values[4],
      );
    res.writeHead(200, headers);
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
    process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
  });
}

function report(servers: readonly { name: string }[], results: Result[][], mode: string) {
  const us = (x: number) => (x * 1000).toFixed(2);
  const [without, withFields] = results as [Result[], Result[]];
  console.log(`\n${mode}:`);
  for (const [i, s] of servers.entries()) {
    const rs = results[i] as Result[];
    console.log(
      `${s.name.padEnd(24)} req/s ${median(rs.map((r) => r.rps)).toFixed(0)} · server CPU µs/answer ${us(median(rs.map((r) => r.cpuPerReq)))} · client CPU µs/answer ${us(median(rs.map((r) => r.clientCpuPerReq)))}`,
    );
  }
  const paired = (of: (r: Result) => number) =>
    median(without.map((r, i) => of(withFields[i] as Result) - of(r)));
  console.log(
    `the five fields, paired by round (median of ${ROUNDS}): server +${us(paired((r) => r.cpuPerReq))} µs, client +${us(paired((r) => r.clientCpuPerReq))} µs an answer; req/s with / without ${median(without.map((r, i) => (withFields[i] as Result).rps / r.rps)).toFixed(3)}`,
  );
}

async function main() {
  const variants = [
    { name: "without the five fields", ...startProcess(["scripts/bench/header-fields.ts", "serve"]) },
    { name: "with the five fields", ...startProcess(["scripts/bench/header-fields.ts", "serve", "fields"]) },
  ];
  try {
    const servers = await Promise.all(
      variants.map(async (v) => ({ ...v, url: await v.ready, pid: v.child.pid as number })),
    );
    for (const s of servers) await load(s.url, "/", 100, 2, s.pid);
    const pids = servers.map((s) => s.pid);
    for (const pinned of PIN_MODES) {
      pin(pids, pinned ? "0" : `0-${availableParallelism() - 1}`);
      const results = servers.map(() => [] as Result[]);
      for (let round = 0; round < ROUNDS; round++)
        for (const [i, s] of servers.entries())
          results[i]?.push(
            await load(s.url, "/", 100, SECONDS, s.pid, undefined, undefined, pinned ? "1" : undefined),
          );
      report(servers, results, pinned ? "pinned (client on CPU 1, servers on CPU 0)" : "unpinned");
    }
  } finally {
    for (const v of variants) v.child.kill("SIGTERM");
  }
}

if (process.argv[2] === "serve") serve(process.argv[3] === "fields");
else await main();
