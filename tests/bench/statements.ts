/**
 * Benchmark (not part of `npm test`): `npm run bench:statements`.
 * A month's statement CSV of VALIDATORS validators (default 1,000: 31 rows each) from a control plane in
 * its own process (`control-plane/src/main.ts`, production settings), downloaded RUNS times over a real
 * socket with undici, the body consumed as it streams. Prints each download's wall time, rows and bytes,
 * and the server's memory idle, at its peak during the downloads and after: resident (VmRSS, sampled every
 * 10 ms) and the V8 heap in use (`nodejs_heap_size_used_bytes` of its `/metrics`, sampled every 50 ms); then the same for a month of SMALL (default 100) and LARGE (default 4,000) validators: a peak
 * that does not grow with the month's size (40 times the rows) shows the CSV is streamed, not built in memory. Data: the statements test's
 * seed (four epochs a UTC day: the end-of-day balance is one index probe however many epochs a day has).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Client } from "undici";
import { freePort } from "../../scripts/lib/ports.ts";
import { startProcess, stopAll } from "../../scripts/lib/processes.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { testRedisUrl } from "../helpers/redis.ts";
import { seedEthereum } from "../statements/seed.ts";

const VALIDATORS = Number(process.env.VALIDATORS ?? 1_000);
const SMALL = Number(process.env.SMALL ?? 100);
const LARGE = Number(process.env.LARGE ?? 4_000);
const RUNS = Number(process.env.RUNS ?? 5);
/**
 * V8 flags for the API process, space-separated (`API_FLAGS="--max-semi-space-size=32"`): production starts
 * it with none; this compares a flag side by side (docs/benchmarks.md §6).
 */
const FLAGS = (process.env.API_FLAGS ?? "").split(" ").filter(Boolean);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
/** User + system CPU time of a process so far (Linux /proc, clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssMiB = (pid: number) => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  return Number(kb) / 1024;
};

console.log(
  `statements bench, ${new Date().toISOString()}, load ${load()}, API flags: ${FLAGS.join(" ") || "none"}`,
);
const h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "statements" });
const sizes = [SMALL, VALIDATORS, LARGE];
const orgs = await Promise.all(sizes.map(() => makeOrganisation(h.db)));
const t = performance.now();
await seedEthereum(
  h,
  sizes.reduce((a, b) => a + b, 0),
  sizes.flatMap((n, i) => Array.from({ length: n }, () => orgs[i]?.id ?? "")),
);
await h.sql`vacuum analyze`;
console.log(
  `seeded ${sizes.join(" + ")} validators × 34 days in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

const port = await freePort();
const logFile = join(".data", `bench-statements-${process.pid}.log`);
const server = await startProcess({
  name: "control-plane",
  entry: "control-plane/src/main.ts",
  nodeFlags: FLAGS,
  env: {
    ...process.env,
    DATABASE_URL: h.config.databaseUrl,
    REDIS_URL: testRedisUrl(),
    REDIS_PREFIX: `bench:${randomBytes(4).toString("hex")}:`,
    CONTROL_PLANE_PORT: String(port),
    CONTROL_PLANE_AREAS: "statements",
    API_KEY_REQUESTS_PER_MINUTE: "1000000000",
    DEMO_MODE: "1",
  },
  readyUrl: `http://127.0.0.1:${port}`,
  stdoutFile: logFile,
});
const pid = server.child.pid as number;
const client = new Client(server.url, { pipelining: 1 });
const scraper = new Client(server.url, { pipelining: 1 });
/** The server's V8 heap in use (MiB), from its Prometheus metrics (loopback callers may read them). */
async function heapMiB(): Promise<number> {
  const res = await scraper.request({ method: "GET", path: "/metrics" });
  const text = await res.body.text();
  const used = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text)?.[1];
  return Number(used) / 1024 / 1024;
}

async function download(key: string): Promise<{ ms: number; rows: number; bytes: number }> {
  const s = performance.now();
  const res = await client.request({
    method: "GET",
    path: "/api/statements.csv?month=2026-10&chain=ethereum",
    headers: { "api-key": key },
  });
  if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${await res.body.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { ms: performance.now() - s, rows: lines - 1, bytes };
}

async function measure(name: string, key: string) {
  await download(key); // warm-up: connections, plans, JIT
  const idle = rssMiB(pid);
  const heapIdle = await heapMiB();
  let peak = idle;
  let heapPeak = heapIdle;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 10);
  let sampling = true;
  const heapSampler = (async () => {
    while (sampling) {
      heapPeak = Math.max(heapPeak, await heapMiB());
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const runs: string[] = [];
  const cpu0 = cpuMs(pid);
  for (let i = 0; i < RUNS; i++) {
    const r = await download(key);
    runs.push(`${r.ms.toFixed(0)} ms`);
    if (i === 0) console.log(`${name}: ${r.rows} rows, ${(r.bytes / 1024).toFixed(0)} KiB a download`);
  }
  clearInterval(sampler);
  sampling = false;
  await heapSampler;
  const cpu = (cpuMs(pid) - cpu0) / RUNS;
  console.log(`  wall: ${runs.join(", ")}; server CPU ${cpu.toFixed(0)} ms a download (load ${load()})`);
  console.log(
    `  server RSS: ${idle.toFixed(1)} MiB before, ${peak.toFixed(1)} MiB peak (+${(peak - idle).toFixed(1)}), ${rssMiB(pid).toFixed(1)} MiB after`,
  );
  console.log(
    `  server heap used: ${heapIdle.toFixed(1)} MiB before, ${heapPeak.toFixed(1)} MiB peak (+${(heapPeak - heapIdle).toFixed(1)}), ${(await heapMiB()).toFixed(1)} MiB after`,
  );
}

/**
 * The same CSV built in this process by the statements service, with a full collection before and after
 * (`node --expose-gc`): what the download leaves live. The peaks above are garbage awaiting collection;
 * this shows none of the month is kept.
 */
async function retained(name: string, org: { id: string }) {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return;
  const { service } = await areaOf(h, "statements");
  const csv = () =>
    pipeline(
      service.csv({ id: org.id, scope: {} }, { month: "2026-10", chain: "ethereum", currency: "USD" }),
      new Writable({ write: (_c, _e, cb) => cb() }),
    );
  await csv();
  gc();
  const before = process.memoryUsage().heapUsed;
  await csv();
  gc();
  const after = process.memoryUsage().heapUsed;
  const mib = (b: number) => (b / 1024 / 1024).toFixed(1);
  console.log(
    `  in process, live heap after a full collection: ${mib(before)} MiB before, ${mib(after)} MiB after (${name})`,
  );
}

try {
  for (const [i, n] of sizes.entries()) {
    await measure(`a month of ${n} validators`, orgs[i]?.apiKey ?? "");
    await retained(`${n} validators`, orgs[i] ?? { id: "" });
  }
} finally {
  await client.close();
  await scraper.close();
  await stopAll([server]);
  await h.close();
}
