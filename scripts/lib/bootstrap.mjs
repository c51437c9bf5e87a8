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

/** Runs a TypeScript entry with tsx, forwarding signals and the exit code. */
export function runTs(entry, args = []) {
  // The IPC channel is the entry's lifeline: it closes when this process dies, however it dies, and the
  // entry then stops what it started (scripts/lib/owned.ts, stopWithBootstrap).
  const child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  });
  // A supervisor may signal only this process (not the terminal's whole group): pass it on, so the entry
  // stops what it started instead of being orphaned with it. The entries' shutdowns are idempotent.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) =>
    process.exit(code ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 1)),
  );
}
