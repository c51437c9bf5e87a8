/**
 * The measuring side of `npm run bench:gateway`: start a target in its own process, read its CPU time and
 * RSS from /proc, drive it from a fresh load-generator process (scripts/bench/load.ts), and take the median
 * of its rounds.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GATEWAY_NODE_FLAGS } from "@stake/gateway/build";
import { ROOT } from "../lib/infra.ts";
import { entryCommand } from "../lib/processes.ts";

export function startProcess(
  args: string[],
  env: Record<string, string> = {},
  nodeFlags: readonly string[] = GATEWAY_NODE_FLAGS,
) {
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the gateway process on exit; BENCH_NODE_FLAGS replaces
  // the gateway's V8 flags (to compare settings); BENCH_ONLY=<name prefix>[,<prefix>…] runs only those targets.
  const profile =
    process.env.BENCH_PROFILE && /(^|\/)(bench-)?gateway\//.test(args[0] ?? "")
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`]
      : [];
  // A TypeScript helper (the upstream, the bare proxy) from its bundle under `npm test`, else through tsx.
  const [entry = "", ...rest] = args;
  const command = entry.endsWith(".js")
    ? [...(process.env.BENCH_NODE_FLAGS?.split(" ").filter(Boolean) ?? nodeFlags), ...args]
    : [...entryCommand(entry), ...rest];
  const child = spawn(process.execPath, [...profile, ...command], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ready = new Promise<string>((resolve, reject) => {
    let buf = "";
    const onData = (d: Buffer) => {
      buf += d.toString();
      const m = /READY (\S+)/.exec(buf);
      if (m?.[1]) {
        // The access log keeps flowing on stdout: drain it so the pipe never blocks the server.
        child.stdout.off("data", onData);
        child.stdout.resume();
        resolve(/^\d+$/.test(m[1]) ? `http://127.0.0.1:${m[1]}` : m[1]);
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
  });
  return { child, ready };
}

/** The process and its children (a GATEWAY_PROCESSES primary's gateway processes). */
function tree(pid: number): number[] {
  let children = "";
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  } catch {}
  return [pid, ...(children ? children.split(" ").map(Number) : [])];
}
const sumOver = (pid: number, of: (pid: number) => number) =>
  tree(pid).reduce((n, p) => {
    try {
      return n + of(p);
    } catch {
      return n; // a child gone between listing and reading
    }
  }, 0);

export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, 100 ticks/s
}
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) / 1024;
}

/**
 * nginx with one worker and a keep-alive upstream pool, the reference reverse proxy. Its CPU and RSS are
 * read from the worker process (the master only supervises). Returns null when nginx is not installed.
 */
export async function startNginx(upstreamUrl: string) {
  const bin = spawnSync("sh", ["-c", "command -v nginx || ls /usr/sbin/nginx"], {
    encoding: "utf8",
  }).stdout.trim();
  if (!bin) return null;
  const dir = mkdtempSync(join(tmpdir(), "bench-nginx-"));
  chmodSync(dir, 0o777); // the worker may run as an unprivileged user and needs its temp paths
  const port = await freePort();
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  upstream up { server ${new URL(upstreamUrl).host}; keepalive 256; }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    keepalive_requests 1000000;
    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`;
  writeFileSync(join(dir, "nginx.conf"), conf);
  const child = spawn(bin, ["-p", dir, "-e", `${dir}/error.log`, "-c", join(dir, "nginx.conf")], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim();
    const up = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (up && children) return { child, url, workerPid: Number(children.split(" ")[0]) };
    if (i > 100) throw new Error(`nginx did not start: ${readFileSync(join(dir, "error.log"), "utf8")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Moves running processes (every thread, and a primary's gateway processes) to the CPUs `cpus` (a taskset
 * list, "0" or "0-1").
 */
export function pin(pids: readonly number[], cpus: string): void {
  for (const pid of pids.flatMap(tree))
    spawnSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
}

/** `INFO commandstats` as calls and µs per command. */
export type CommandStats = Map<string, { calls: number; usec: number }>;
export function parseCommandStats(info: string): CommandStats {
  const stats: CommandStats = new Map();
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm))
    stats.set(m[1] as string, { calls: Number(m[2]), usec: Number(m[3]) });
  return stats;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.once("error", reject);
  });
}

export interface Result {
  /** Requests answered 200. */
  count: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  cpuPerReq: number;
  /** Redis server CPU ms per request (gateway target, when Redis runs on this machine). */
  redisCpuPerReq: number;
  /** The load generator's own CPU ms per request: what reading the answers cost the client. */
  clientCpuPerReq: number;
  peakRss: number;
}

/**
 * One load run against `url` from a fresh load-generator process (scripts/bench/load.ts), while this
 * process samples the server's CPU time and RSS from /proc (its children's included: a primary's
 * gateway processes).
 */
export async function load(
  url: string,
  path: string,
  connections: number,
  seconds: number,
  pid: number,
  gatewayKey?: string,
  redisPid?: number,
  /** CPUs (a taskset list) the load generator runs on; absent: wherever the scheduler puts it. */
  pinLoad?: string,
): Promise<Result> {
  let peakRss = sumOver(pid, rssMb);
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, sumOver(pid, rssMb));
  }, 50);
  const cpuStart = sumOver(pid, cpuMs);
  const redisStart = redisPid ? cpuMs(redisPid) : 0;
  const args = [url, path, String(connections), String(seconds)];
  if (gatewayKey) args.push(gatewayKey, `b${++loadRuns}`);
  const command = [process.execPath, ...entryCommand("scripts/bench/load.ts"), ...args];
  if (pinLoad) command.unshift("taskset", "-c", pinLoad);
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  clearInterval(sampler);
  const cpu = sumOver(pid, cpuMs) - cpuStart;
  const redisCpu = redisPid ? cpuMs(redisPid) - redisStart : Number.NaN;
  if (code !== 0) throw new Error(`load generator exited with ${code}`);
  const r = JSON.parse(out) as {
    count: number;
    errors: number;
    elapsed: number;
    p50: number;
    p99: number;
    cpuMs: number;
  };
  return {
    count: r.count,
    rps: r.count / r.elapsed,
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    cpuPerReq: r.count ? cpu / r.count : Number.NaN,
    redisCpuPerReq: r.count ? redisCpu / r.count : Number.NaN,
    clientCpuPerReq: r.count ? r.cpuMs / r.count : Number.NaN,
    peakRss,
  };
}
let loadRuns = 0;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Field by field median of one target's rounds; peak RSS is the highest seen. */
export function medianResult(rs: Result[]): Result {
  const m = (k: keyof Result) => median(rs.map((r) => r[k]));
  return {
    count: rs.reduce((n, r) => n + r.count, 0),
    rps: m("rps"),
    p50: m("p50"),
    p99: m("p99"),
    errors: rs.reduce((n, r) => n + r.errors, 0),
    cpuPerReq: m("cpuPerReq"),
    redisCpuPerReq: m("redisCpuPerReq"),
    clientCpuPerReq: m("clientCpuPerReq"),
    peakRss: Math.max(...rs.map((r) => r.peakRss)),
  };
}
