import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { ensureInfra, ROOT } from "../scripts/lib/infra.ts";
import { resetTestTemplate } from "./helpers/pg.ts";

/**
 * `npm test` (started by scripts/test.mjs): every check CI runs, in order: typecheck, lint, unit tests,
 * integration tests. The tests get their own databases (cloned from a freshly migrated template) and
 * their own Redis key prefixes. It lives under tests/ because it drives the test fixtures: nothing under
 * scripts/ imports test code.
 */
const infra = await ensureInfra();
process.env.TEST_DATABASE_URL = infra.databaseUrl;
process.env.TEST_REDIS_URL = infra.redisUrl;

const step = (name: string, cmd: string, args: string[]) => {
  console.log(`\n=== ${name}`);
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: "inherit", env: process.env });
  if (r.status !== 0) {
    console.error(`${name} failed`);
    infra.stop();
    process.exit(r.status ?? 1);
  }
};

let code = 0;
try {
  await resetTestTemplate(infra.databaseUrl);
  const bin = (name: string) => `${ROOT}/node_modules/.bin/${name}`;
  step("typecheck", bin("tsc"), ["-p", "tsconfig.json", "--noEmit"]);
  // The dashboard page is browser code (DOM types, JSX): its own project.
  step("typecheck dashboard page", bin("tsc"), [
    "-p",
    "control-plane/src/features/dashboard/page",
    "--noEmit",
  ]);
  step("lint", bin("biome"), ["check", "."]);
  // The control plane serves the dashboard from its build (control-plane/build.ts), as `npm start` does.
  step("build dashboard", process.execPath, ["--import", "tsx", "control-plane/build.ts"]);
  // Node 20's runner does not expand globs: collect *.test.ts under the given folders (default: all).
  const roots = process.argv.slice(2);
  const files = findTests(roots.length ? roots : ["db", "gateway", "control-plane", "devnet", "tests"]);
  step("tests", process.execPath, ["--import", "tsx", "--test", "--test-timeout=300000", ...files]);
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  infra.stop();
}
process.exit(code);

function findTests(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isFile()) {
      if (p.endsWith(".test.ts")) out.push(p);
      return;
    }
    for (const entry of readdirSync(p))
      if (entry !== "node_modules" && !entry.startsWith(".")) walk(path.join(p, entry));
  };
  for (const r of roots) walk(path.resolve(ROOT, r));
  return out.sort();
}
