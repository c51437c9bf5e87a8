// Plain JavaScript on purpose: this runs before any dependency is installed.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { constants as osConstants } from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Installs the workspace with pnpm 10 when node_modules is missing or older than the lockfile. */
export function ensureInstalled() {
  const marker = path.join(ROOT, "node_modules", ".modules.yaml");
  const lock = path.join(ROOT, "pnpm-lock.yaml");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  const hasPnpm = spawnSync("pnpm", ["--version"], { stdio: "ignore" }).status === 0;
  const [cmd, args] = hasPnpm ? ["pnpm", []] : ["npx", ["--yes", "pnpm@10"]];
  console.error("installing dependencies (pnpm install --frozen-lockfile)…");
  const r = spawnSync(cmd, [...args, "install", "--frozen-lockfile"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/**
 * Runs a TypeScript entry from its bundle (bundle.mjs, under .data/entries/; built again only when a file it
 * reads changed), forwarding signals and the exit code. Through tsx, `npm start`'s entry alone took 2.5 s
 * of CPU to load.
 */
export async function runTs(entry, args = []) {
  // Imported here: esbuild is there only once ensureInstalled has run.
  const { bundleEntries, bundleOf } = await import("./bundle.mjs");
  const dir = path.join(ROOT, ".data", "entries", entry.replace(/\.ts$/, ""));
  await bundleEntries([entry], dir);
  const child = spawn(process.execPath, ["--enable-source-maps", bundleOf(dir, entry), ...args], {
    cwd: ROOT,
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  // A supervisor may signal only this process (not the terminal's whole group): pass it on, so the entry
  // stops what it started instead of being orphaned with it. The entries' shutdowns are idempotent.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  // The process that started this one may end without a signal reaching it (npm SIGKILLed, or npm's
  // `sh -c` killed where the script is not `exec`ed): this one is then re-parented, and stops as on SIGTERM.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && child.kill("SIGTERM"), 500).unref();
  child.on("exit", (code, signal) =>
    process.exit(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)),
  );
}
