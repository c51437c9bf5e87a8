import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { createInterface } from "node:readline";
import { bundleOf } from "./bundle.mjs";
import { ROOT, startupLimitMs } from "./infra.ts";
import { signalGroup, spawnOwned } from "./owned.ts";

export interface Started {
  name: string;
  child: ChildProcess;
  url: string;
}

/**
 * Node's arguments that run a TypeScript entry point: its bundle when one was built under `dir`
 * (scripts/lib/bundle.mjs; `npm start` builds the processes it starts, `npm test` sets STAKE_BUNDLE_DIR for
 * what the tests spawn), else the source through tsx.
 */
export function entryCommand(entry: string, dir = process.env.STAKE_BUNDLE_DIR): string[] {
  const bundle = dir && bundleOf(dir, entry);
  return bundle && existsSync(bundle) ? ["--enable-source-maps", bundle] : ["--import", "tsx", entry];
}

/**
 * Starts an entry (TypeScript through its bundle or tsx, see entryCommand, or a built `.js` bundle with plain node) as a child process and waits until it is ready: either it prints
 * `READY <url>` (the devnets) or `readyUrl` answers 200 (the deployables). Logs go to the parent's stderr
 * with a name prefix; a child that exits early fails the start. The child runs in a process group of its own
 * that dies with this process (scripts/lib/owned.ts), so nothing it started outlives a failed start.
 */
export function startProcess(opts: {
  name: string;
  entry: string;
  /** Where a bundle of a `.ts` entry is looked for (entryCommand). */
  bundles?: string;
  /** Node flags before the entry (e.g. `--cpu-prof`). */
  nodeFlags?: string[];
  /** Append the child's stdout (its log lines) to this file instead of the parent's stderr; needs `readyUrl`. */
  stdoutFile?: string;
  env: NodeJS.ProcessEnv;
  readyUrl?: string;
  /** Where the child's log lines go (default: the parent's stderr, prefixed with its name). */
  output?: (line: string) => void;
}): Promise<Started> {
  const args = [
    ...(opts.nodeFlags ?? []),
    ...(opts.entry.endsWith(".js")
      ? ["--enable-source-maps", opts.entry]
      : entryCommand(opts.entry, opts.bundles)),
  ];
  const stdout = opts.stdoutFile ? openSync(opts.stdoutFile, "a") : "pipe";
  const child = spawnOwned(process.execPath, args, {
    cwd: ROOT,
    env: opts.env,
    stdio: ["ignore", stdout, "pipe"],
  });
  if (typeof stdout === "number") closeSync(stdout);
  const prefix = `[${opts.name}] `;
  const output = opts.output ?? ((l: string) => process.stderr.write(`${prefix}${l}\n`));
  createInterface({ input: child.stderr! }).on("line", output);
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, url?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) {
        signalGroup(child, "SIGKILL");
        reject(err);
      } else resolve({ name: opts.name, child, url: url! });
    };
    const limit = startupLimitMs();
    const timer = setTimeout(
      () => finish(new Error(`${opts.name} did not become ready within ${limit} ms (STARTUP_LIMIT_MS)`)),
      limit,
    );
    child.once("exit", (code) => finish(new Error(`${opts.name} exited with code ${code}`)));
    if (child.stdout)
      createInterface({ input: child.stdout }).on("line", (line) => {
        const ready = /^READY (\S+)/.exec(line);
        if (ready?.[1] && !opts.readyUrl) finish(null, ready[1]);
        else if (!settled || line.trim()) output(line);
      });
    if (opts.readyUrl) {
      const url = opts.readyUrl;
      const poll = async () => {
        while (!settled) {
          const ok = await fetch(`${url}/healthz`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) return finish(null, url);
          await new Promise((r) => setTimeout(r, 150));
        }
      };
      void poll();
    }
  });
}

export function stopAll(started: Started[]): Promise<void> {
  return Promise.all(
    started.reverse().map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.child.exitCode !== null) return resolve();
          s.child.once("exit", () => resolve());
          signalGroup(s.child, "SIGTERM");
          setTimeout(() => signalGroup(s.child, "SIGKILL"), 5000).unref();
        }),
    ),
  ).then(() => undefined);
}
