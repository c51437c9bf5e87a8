/**
 * Closed-loop load generator, one process per run so no run inherits another's heap, sockets or timers:
 * `connections` workers each send the next GET as soon as the last one finished. Prints one JSON line
 * {count, errors, elapsed, p50, p99, cpuMs} (latencies in ms; cpuMs: this process's own CPU over the run,
 * what parsing the answers cost the client) and exits.
 *   tsx scripts/bench/load.ts <url> <path> <connections> <seconds> [<gateway-key> <idempotency-prefix>]
 * With a gateway key every request carries it and a fresh idempotency key.
 */
import { Pool } from "undici";

const [url, path, connections, seconds, key, prefix] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string | undefined,
  string | undefined,
];
let n = 0;
const headers = (): string[] =>
  key ? ["x-gateway-api-key", key, "idempotency-key", `${prefix}-${++n}`] : [];

// A request that stalls counts as an error after 30 s instead of holding the run (and the bench) forever.
const pool = new Pool(url, {
  connections: Number(connections),
  pipelining: 1,
  headersTimeout: 30_000,
  bodyTimeout: 30_000,
});
const latencies: number[] = [];
let errors = 0;
const end = Date.now() + Number(seconds) * 1000;
const worker = async () => {
  while (Date.now() < end) {
    const t = process.hrtime.bigint();
    try {
      const res = await pool.request({ path, method: "GET", headers: headers() });
      await res.body.dump();
      if (res.statusCode !== 200) errors++;
      else latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
    } catch {
      errors++;
    }
  }
};
const started = Date.now();
const cpuStarted = process.cpuUsage();
await Promise.all(Array.from({ length: Number(connections) }, worker));
const elapsed = (Date.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStarted);
const cpuMs = (cpu.user + cpu.system) / 1000;
await pool.close();
const sorted = Float64Array.from(latencies).sort();
const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
process.stdout.write(
  `${JSON.stringify({ count: sorted.length, errors, elapsed, p50: at(0.5), p99: at(0.99), cpuMs })}\n`,
);
