import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "../scripts/lib/infra.ts";
import { signalGroup, spawnOwned } from "../scripts/lib/owned.ts";

/**
 * The test files of a run, each in a process of its own, on two cores:
 *
 * - while fast files are queued, four files run at once, at most two of them slow (the slow files start
 *   real chains or whole deployments; their timing is what they test, so no third one joins them);
 * - once no fast file is queued, two slow files run at once.
 *
 * Four, not two: most files spend most of their time waiting (on a server they started, a fault's window,
 * a chain's next block), so two at a time left a core idle. Measured per file with its children's CPU, the
 * suite used 1.2–1.4 cores at three at a time, with the slow files one after another as the critical path
 * (the first-hour test, then the Postgres outage: 140 s). At four the whole run went from 270–280 s to
 * 221 s; at five it was no faster (240 s: the files' CPU, not their waits, is then the limit).
 *
 * Longest first: each file's last duration is kept in .data/test-times.json; a clone that never ran a file
 * takes its duration from tests/durations.json (a committed copy of a whole run's, refreshed by copying the
 * first file over the second; only the order matters), and a file in neither runs in the order of `slowOrder` (the slow lane's
 * patterns, heaviest first) or first among the fast files. Each file's output is printed whole when it
 * ends, so files never interleave. A file runs in a process group of its own (spawnOwned): whatever it
 * leaves running is killed when it ends, and the whole run with the owner.
 */
export interface LaneResult {
  name: string;
  code: number;
  summary: string;
  /** What each failed file said of its failures, printed again at the end of the run. */
  failures?: string[];
}

/** Files to run with `env` added; a slow lane's files take the slow slots. */
export interface Lane {
  name: string;
  files: string[];
  slow: boolean;
  env?: NodeJS.ProcessEnv | undefined;
}

interface Item {
  lane: Lane;
  file: string;
  /** Key of its duration in .data/test-times.json (a file run in two lanes has two). */
  key: string;
}

interface FileResult {
  file: string;
  code: number;
  counts: Record<string, number>;
  failure?: string;
}

const TIMES = path.join(ROOT, ".data", "test-times.json");
const COMMITTED_TIMES = path.join(ROOT, "tests", "durations.json");
const COUNTED = ["tests", "pass", "fail", "cancelled"] as const;
const files = new Set<ChildProcess>();

/** Kills every file still running, with what it started (the run is stopping). */
export function killFiles(): void {
  for (const child of files) signalGroup(child, "SIGKILL");
}

/**
 * Runs every lane's files as above; `slowOrder` ranks the slow files never timed (heaviest first). A file
 * with a bundle in `bundles` (tests/bundle.ts) runs it on plain node, any other through tsx.
 */
export async function runLanes(
  lanes: Lane[],
  slowOrder: RegExp[],
  bundles: ReadonlyMap<string, string> = new Map(),
): Promise<LaneResult[]> {
  const started = Date.now();
  const times = readTimes();
  // A file of another slow lane (the cluster lane's) ranks with its pattern, or last if it has none.
  const rank = (i: Item) => {
    const at = slowOrder.findIndex((re) => re.test(i.file));
    return at < 0 ? slowOrder.length : at;
  };
  const longestFirst = (a: Item, b: Item) =>
    (times[b.key] ?? Number.POSITIVE_INFINITY) - (times[a.key] ?? Number.POSITIVE_INFINITY) ||
    rank(a) - rank(b);
  const items = lanes.flatMap((lane) =>
    lane.files.map((file) => ({ lane, file, key: lane.env ? `${lane.name}:${file}` : file })),
  );
  const fastQueue = items.filter((i) => !i.lane.slow).sort(longestFirst);
  const slowQueue = items.filter((i) => i.lane.slow).sort(longestFirst);
  const running = { fast: 0, slow: 0 };
  const done = new Map<Lane, FileResult[]>(lanes.map((l) => [l, []]));
  const ended = new Map<Lane, number>();

  await new Promise<void>((resolve) => {
    const schedule = () => {
      for (;;) {
        const fastLeft = fastQueue.length > 0;
        if (running.fast + running.slow >= (fastLeft ? 4 : 2)) break;
        const kind = slowQueue.length && running.slow < 2 ? "slow" : fastLeft ? "fast" : null;
        if (!kind) break;
        const item = (kind === "slow" ? slowQueue : fastQueue).shift()!;
        running[kind]++;
        const t = Date.now();
        runFile(item, bundles.get(item.file)).then((r) => {
          running[kind]--;
          times[item.key] = Date.now() - t;
          done.get(item.lane)!.push(r);
          ended.set(item.lane, Date.now());
          schedule();
        });
      }
      if (running.fast + running.slow === 0) resolve();
    };
    schedule();
  });
  writeFileSync(TIMES, JSON.stringify(times, null, 1));

  return lanes
    .filter((lane) => lane.files.length)
    .map((lane) => {
      const results = done.get(lane)!;
      const sum = (k: string) => results.reduce((n, r) => n + (r.counts[k] ?? 0), 0);
      const failed = results.filter((r) => r.code !== 0).map((r) => r.file);
      return {
        name: `${lane.name} lane`,
        code: failed.length ? 1 : 0,
        failures: results.flatMap((r) => (r.failure ? [`[${lane.name}] ${r.file}\n${r.failure}`] : [])),
        summary:
          `${lane.files.length} files, ${sum("tests")} tests, ${sum("pass")} passed, ${sum("fail")} failed, ` +
          `${sum("cancelled")} cancelled, ended ${seconds((ended.get(lane) ?? started) - started)} after the first file` +
          (failed.length ? `; failed: ${failed.join(", ")}` : ""),
      };
    });
}

function runFile({ lane, file }: Item, bundle: string | undefined): Promise<FileResult> {
  const t = Date.now();
  // Run directly (no `node --test` parent per file); the same flags the runner would pass its children.
  // --test-force-exit: a handle a file forgot does not hold the run; its processes die with its group.
  const [loader, entry] = bundle ? [["--enable-source-maps"], bundle] : [["--import", "tsx"], file];
  const child = spawnOwned(
    process.execPath,
    [...loader, "--test-reporter=spec", "--test-timeout=300000", "--test-force-exit", entry],
    { cwd: ROOT, env: { ...process.env, ...lane.env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  files.add(child);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d));
  child.stderr?.on("data", (d: Buffer) => (output += d));
  return new Promise((resolve) =>
    child.once("close", (code) => {
      files.delete(child);
      const counts: Record<string, number> = {};
      for (const m of output.matchAll(/^ℹ (\w+) (\d+)$/gm))
        if ((COUNTED as readonly string[]).includes(m[1]!))
          counts[m[1]!] = (counts[m[1]!] ?? 0) + Number(m[2]);
      // A file that died before its summary (a crash at import) counts as failed, whatever its exit code.
      const ok = code === 0 && counts.tests !== undefined;
      const prefix = `[${lane.name}] `;
      const head = `${file}: ${ok ? "ok" : `FAILED (exit ${code})`}, ${counts.tests ?? "?"} tests, ${seconds(Date.now() - t)}`;
      process.stdout.write(
        `${prefix}=== ${head}\n${output
          .trimEnd()
          .split("\n")
          .map((l) => prefix + l)
          .join("\n")}\n`,
      );
      resolve({
        file,
        code: ok ? 0 : (code ?? 1) || 1,
        counts,
        ...(ok ? {} : { failure: failureOf(output) }),
      });
    }),
  );
}

/**
 * A failed file's own account of its failures, for the recap at the end of the run: the reporter's
 * "failing tests" section, else (a crash before any summary) its last lines. The whole output was printed
 * when the file ended, hundreds of lines before the summary: a log cut to its end keeps the recap.
 */
function failureOf(output: string): string {
  const at = output.lastIndexOf("✖ failing tests:");
  const lines = (at >= 0 ? output.slice(at) : output).trimEnd().split("\n");
  return (at >= 0 ? lines.slice(0, 120) : lines.slice(-60)).join("\n");
}

function readTimes(): Record<string, number> {
  return { ...readJson(COMMITTED_TIMES), ...readJson(TIMES) };
}

function readJson(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
