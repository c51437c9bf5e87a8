import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { type Example, type Examples, keepExample } from "../control-plane/src/http/examples.ts";
import { ensureInfra, ROOT, stateDir } from "../scripts/lib/infra.ts";
import { spawnOwned, stopWithBootstrap } from "../scripts/lib/owned.ts";
import { resetTestTemplate } from "./helpers/pg.ts";

/**
 * `npm run openapi:examples` (docs/testing.md, "OpenAPI examples"): runs the test files that drive the
 * control plane in process, one at a time, with the example recorder on (tests/helpers/control-plane.ts),
 * and writes what they recorded to `control-plane/src/openapi-examples.json`. It lives under tests/
 * because it drives the test fixtures, as tests/run.ts does.
 */
const OUT = path.join(ROOT, "control-plane", "src", "openapi-examples.json");
const RECORDED = path.join(stateDir(), "openapi-examples");
/** The browser, CLI and process-killing files call apps of other processes, which record nothing. */
const SKIPPED = /^tests\/(dashboard\/|scripts\/|webhooks\/worker-kill)/;
const DRIVES_APP = /createControlPlaneHarness|createApp\(/;

/** Test files that build a control-plane app, directly or through a helper of their folder, on real input. */
function testFiles(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (rel.endsWith(".test.ts") && !SKIPPED.test(rel) && recordsExamples(rel)) files.push(rel);
    }
  };
  walk("tests");
  return files.sort();
}

function recordsExamples(file: string): boolean {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  // Property-based files (the fuzzer among them) send random input, which makes odd examples.
  if (text.includes('from "fast-check"')) return false;
  const helpers = [...text.matchAll(/from "\.\/([\w-]+\.ts)"/g)].map((m) =>
    readFileSync(path.join(ROOT, path.dirname(file), m[1]!), "utf8"),
  );
  return [text, ...helpers].some((t) => DRIVES_APP.test(t));
}

const infra = await ensureInfra();
stopWithBootstrap();
let code = 1;
try {
  await resetTestTemplate(infra.databaseUrl);
  rmSync(RECORDED, { recursive: true, force: true });
  const named = process.argv.slice(2);
  const files = named.length ? named : testFiles();
  console.log(`recording examples from ${files.length} test files, one at a time`);
  const child = spawnOwned(
    process.execPath,
    ["--import", "tsx", "--test", "--test-concurrency=1", "--test-reporter=dot", ...files],
    {
      cwd: ROOT,
      stdio: "inherit",
      env: {
        ...process.env,
        TEST_DATABASE_URL: infra.databaseUrl,
        TEST_REDIS_URL: infra.redisUrl,
        OPENAPI_EXAMPLES_OUT: RECORDED,
      },
    },
  );
  const testsCode = await new Promise<number>((resolve) => child.once("close", (c) => resolve(c ?? 1)));
  const fresh: Examples = {};
  for (const file of readdirSync(RECORDED).sort()) {
    const recorded: Examples = JSON.parse(readFileSync(path.join(RECORDED, file), "utf8"));
    for (const [op, byStatus] of Object.entries(recorded))
      for (const [status, example] of Object.entries(byStatus))
        keepExample(fresh, op, status, example as Example);
  }
  // Named files refresh what they recorded and leave the other examples as they were.
  const merged: Examples = named.length ? JSON.parse(readFileSync(OUT, "utf8")) : {};
  for (const [op, byStatus] of Object.entries(fresh)) merged[op] = { ...merged[op], ...byStatus };
  // Sorted, so a refresh shows in a diff as changed values, not as moved entries.
  const sorted = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((op) => [op, merged[op]]),
  );
  writeFileSync(OUT, `${JSON.stringify(sorted, null, 2)}\n`);
  const count = Object.values(merged).reduce((n, s) => n + Object.keys(s).length, 0);
  console.log(`${Object.keys(merged).length} operations, ${count} examples → ${path.relative(ROOT, OUT)}`);
  if (testsCode !== 0) console.error("some tests failed: their examples may be missing");
  code = testsCode;
} finally {
  infra.stop();
}
process.exit(code);
