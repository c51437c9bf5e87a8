import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Where tests/bundle.ts writes the bundle of a file (relative to the root) under `dir`. */
export const bundleOf = (dir: string, file: string) => path.join(dir, file.replace(/\.ts$/, ".mjs"));

/**
 * Node's arguments that run a TypeScript entry point: its bundle when the test run built one
 * (tests/bundle.ts, TEST_BUNDLE_DIR), else the source through tsx, as `npm run operator` does.
 */
export function entryCommand(entry: string): string[] {
  const dir = process.env.TEST_BUNDLE_DIR;
  const bundle = dir && bundleOf(dir, entry);
  return bundle && existsSync(bundle) ? ["--enable-source-maps", bundle] : ["--import", "tsx", entry];
}

/** Runs a TypeScript entry point as `npm start` / `npm run operator` would, with only the given environment. */
export function runEntry(entry: string, args: string[], env: Record<string, string>) {
  const base: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [...entryCommand(entry), ...args],
      { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 },
      (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}
