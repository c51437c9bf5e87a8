import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./infra.ts";

/**
 * `.data/env`: the settings of the deployment `npm start` runs (its database, Redis and key prefix), so the
 * operator CLI run in the same clone with no variables set talks to it. Variables set in the environment
 * always win over the file.
 */
const FILE = path.join(ROOT, ".data", "env");
const KEYS = ["DATABASE_URL", "REDIS_URL", "REDIS_PREFIX"] as const;

export function writeDeploymentEnv(values: Partial<Record<(typeof KEYS)[number], string | undefined>>): void {
  mkdirSync(path.dirname(FILE), { recursive: true });
  const lines = KEYS.filter((k) => values[k]).map((k) => `${k}=${values[k]}`);
  writeFileSync(
    FILE,
    `# Written by npm start: the deployment it runs (read by npm run operator).\n${lines.join("\n")}\n`,
  );
}

/** `env` with the deployment's settings filled in where unset, and where they came from (null: not used). */
export function withDeploymentEnv(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; source: string | null } {
  if (!existsSync(FILE)) return { env, source: null };
  const filled: NodeJS.ProcessEnv = { ...env };
  let used = false;
  for (const line of readFileSync(FILE, "utf8").split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (!m || !KEYS.includes(m[1] as (typeof KEYS)[number]) || env[m[1]!] !== undefined) continue;
    filled[m[1]!] = m[2];
    used = true;
  }
  return { env: filled, source: used ? path.relative(process.cwd(), FILE) || FILE : null };
}
