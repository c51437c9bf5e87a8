import { spawnSync } from "node:child_process";
import { resetTestTemplate } from "../tests/helpers/pg.ts";
import { ensureInfra, ROOT } from "./lib/infra.ts";

/**
 * Every check CI runs, in order: typecheck, lint, unit tests, integration tests. The tests get their own
 * databases (cloned from a freshly migrated template) and their own Redis key prefixes.
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
  step("lint", bin("biome"), ["check", "."]);
  const only = process.argv.slice(2);
  const files = only.length
    ? only
    : [
        "gateway/src/**/*.test.ts",
        "control-plane/src/**/*.test.ts",
        "db/src/**/*.test.ts",
        "tests/**/*.test.ts",
      ];
  step("tests", process.execPath, ["--import", "tsx", "--test", "--test-timeout=300000", ...files]);
} catch (err) {
  console.error(err);
  code = 1;
} finally {
  infra.stop();
}
process.exit(code);
