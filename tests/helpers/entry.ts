import { execFile } from "node:child_process";
import path from "node:path";
import { entryCommand } from "../../scripts/lib/processes.ts";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

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
