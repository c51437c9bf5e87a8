/**
 * BENCH_REDIS_SOCKET in `npm run bench:gateway`: how the gateway reaches the bench's own Redis. `tcp` (the
 * default): TCP loopback; `unix`: its Unix socket (REDIS_URL `unix://…`, what a Redis on the gateway's host
 * allows); `both`: a second gateway over the socket, a target of its own, so the two transports are paired
 * within each round (docs/benchmarks.md, "quick single calls, second pass").
 */

import { pairedRounds } from "./quick-calls.ts";
import { median, type Result } from "./targets.ts";

export type SocketMode = "tcp" | "unix" | "both";

export function socketMode(ownRedis: boolean, env = process.env): SocketMode {
  const mode = env.BENCH_REDIS_SOCKET ?? "tcp";
  if (mode !== "tcp" && mode !== "unix" && mode !== "both")
    throw new Error("BENCH_REDIS_SOCKET: tcp, unix or both");
  return ownRedis ? mode : "tcp";
}

/** The bench Redis's extra arguments: a socket at `path` unless the mode is TCP only. */
export const socketArgs = (mode: SocketMode, path: string) =>
  mode === "tcp" ? [] : ["--unixsocket", path, "--unixsocketperm", "700"];

/** The second gateway's target name (mode `both`). */
export const SOCKET_GATEWAY = "gateway, Redis socket";

type Runs = Record<string, Record<number, Result[]> | undefined>;

/**
 * The socket gateway against the TCP one, paired per round: p50 and CPU a request (the gateway's and
 * Redis's) at c1 as differences, req/s at c100 as a ratio, and Redis's CPU a request of each at c1. "" when
 * there is no socket gateway.
 */
export function socketAgainstTcp(runs: Runs, pinned: boolean): string {
  const n = (name: string) => (pinned ? `${name} pinned` : name);
  const [socket, tcp] = [n(SOCKET_GATEWAY), n("gateway + billing")];
  if (!runs[socket]) return "";
  const f = (x: number, d = 3) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const diff = (level: number, of: (x: Result, y: Result) => number) => {
    const rounds = pairedRounds(runs, socket, tcp, level, of);
    return `${f(median(rounds))} (rounds ${rounds.map((v) => f(v)).join(", ")})`;
  };
  const cpu = (x: Result) => x.cpuPerReq + x.redisCpuPerReq;
  const redisCpu = (name: string) => f(median((runs[name]?.[1] ?? []).map((r) => r.redisCpuPerReq)));
  return [
    `${pinned ? "pinned: " : ""}Redis socket against TCP, paired rounds:`,
    `p50 at c1 ${diff(1, (x, y) => x.p50 - y.p50)} ms`,
    `· gateway + Redis CPU a request at c1 ${diff(1, (x, y) => cpu(x) - cpu(y))} ms`,
    `· req/s at c100 × ${diff(100, (x, y) => x.rps / y.rps)}`,
    `· Redis CPU ms a request at c1: socket ${redisCpu(socket)}, TCP ${redisCpu(tcp)}`,
  ].join(" ");
}
