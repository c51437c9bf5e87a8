/**
 * What Redis does for the gateway's requests, from a Redis server of the bench's own (so every command is
 * the gateway's): `INFO commandstats` read around each gateway run (script calls, the commands the
 * scripts ran, Redis's time in them, per request) and a short SLOWLOG probe (every call logged) giving each
 * script's own time per call.
 */
import type { Redis } from "@stake/db/redis/client";
import { type CommandStats, median, parseCommandStats } from "./targets.ts";

/** One gateway run's commands: the difference of `INFO commandstats` around it, and what it served. */
export interface RunCommands {
  stats: CommandStats;
  requests: number;
}

const SCRIPT_CALLS = new Set(["evalsha", "eval"]);
/** The bench's own commands, not the gateway's. */
const OURS = new Set(["info", "slowlog|get", "slowlog|reset", "config|set", "config|get"]);

export async function commandStats(redis: Redis): Promise<CommandStats> {
  return parseCommandStats(await redis.info("commandstats"));
}

export function difference(after: CommandStats, before: CommandStats): CommandStats {
  const out: CommandStats = new Map();
  for (const [name, a] of after) {
    const b = before.get(name) ?? { calls: 0, usec: 0 };
    if (a.calls > b.calls) out.set(name, { calls: a.calls - b.calls, usec: a.usec - b.usec });
  }
  return out;
}

/** Per request, median over runs: script calls, commands run inside them, and Redis's µs in the scripts. */
export function describeCommands(runs: readonly RunCommands[]): string {
  if (!runs.length) return "-";
  const per = (of: (r: RunCommands) => number) => median(runs.map((r) => of(r) / Math.max(1, r.requests)));
  const sum = (r: RunCommands, keep: (name: string) => boolean, k: "calls" | "usec") =>
    [...r.stats].reduce((n, [name, s]) => (keep(name) ? n + s[k] : n), 0);
  const inner = (name: string) => !SCRIPT_CALLS.has(name) && !OURS.has(name);
  const names = new Set(runs.flatMap((r) => [...r.stats.keys()].filter(inner)));
  const each = [...names]
    .map((name) => [name, per((r) => r.stats.get(name)?.calls ?? 0)] as const)
    .filter(([, n]) => n >= 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([name, n]) => `${name} ${n.toFixed(2)}`)
    .join(", ");
  return [
    `${per((r) => sum(r, (n) => SCRIPT_CALLS.has(n), "calls")).toFixed(2)} script calls`,
    `${per((r) => sum(r, inner, "calls")).toFixed(1)} commands (${each})`,
    `${per((r) => sum(r, (n) => SCRIPT_CALLS.has(n), "usec")).toFixed(1)} µs in scripts`,
  ].join(" · ");
}

/**
 * Logs every command for the length of `during` (SLOWLOG, threshold 0) and returns each script's median
 * and p90 µs per call, by name. The log keeps the last `max` calls.
 */
export async function scriptTimes(
  redis: Redis,
  scripts: Record<string, string>,
  during: () => Promise<unknown>,
  max = 2000,
): Promise<string> {
  const [[, threshold], [, length]] = [
    (await redis.config("GET", "slowlog-log-slower-than")) as [string, string],
    (await redis.config("GET", "slowlog-max-len")) as [string, string],
  ];
  await redis.config("SET", "slowlog-log-slower-than", "0");
  await redis.config("SET", "slowlog-max-len", String(max));
  await redis.slowlog("RESET");
  try {
    await during();
    const entries = (await redis.slowlog("GET", max)) as Array<[number, number, number, string[]]>;
    const bySha = new Map<string, number[]>();
    for (const [, , usec, args] of entries) {
      if (String(args[0]).toLowerCase() !== "evalsha") continue;
      const sha = String(args[1]);
      bySha.set(sha, [...(bySha.get(sha) ?? []), usec]);
    }
    return Object.entries(scripts)
      .map(([name, sha]) => {
        const us = (bySha.get(sha) ?? []).sort((a, b) => a - b);
        const p90 = us[Math.floor(us.length * 0.9)] ?? Number.NaN;
        return `${name} ${median(us).toFixed(0)} µs (p90 ${p90.toFixed(0)}, ${us.length} calls)`;
      })
      .join(" · ");
  } finally {
    await redis.config("SET", "slowlog-log-slower-than", threshold);
    await redis.config("SET", "slowlog-max-len", length);
  }
}
