import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import postgres from "postgres";
import { BENCH_SMOKE, BENCH_SMOKE_DB } from "../../scripts/bench/smoke.ts";
import { ROOT } from "../../scripts/lib/infra.ts";
import { adminUrl } from "../helpers/pg.ts";

after(async () => {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${BENCH_SMOKE_DB} with (force)`).finally(() => admin.end());
});

// Every bench the README lists runs end to end in its smoke size (scripts/bench/smoke.ts), in two test
// files (benches-gateway, benches-areas) so the slow lane runs them side by side: one after another they
// were its longest file (390 s of a 615 s lane).
const scripts = Object.keys(
  (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
    .scripts,
).filter((name) => name.startsWith("bench:"));

/** The gateway's three benches (each starts whole gateway stacks) apart from the areas' benches. */
export const isGatewayBench = (name: string) => name.startsWith("bench:gateway");

/**
 * Runs the chosen benches' smoke sizes, `concurrency` at a time. A bench spends most of its smoke run
 * waiting on what it started (a devnet's slots, a server's start-up), with a database, Redis prefix, ports
 * and gateway build of its own (`bench:gateway` builds under .data/; only side-by-side writes gateway/dist/),
 * so they run side by side.
 */
export function smokeRuns(which: (name: string) => boolean, concurrency = 1) {
  test("every bench script has a smoke size", () => {
    assert.deepEqual(
      scripts.filter((name) => !BENCH_SMOKE[name]),
      [],
      "add the new bench to scripts/bench/smoke.ts",
    );
  });
  describe("bench smoke runs", { concurrency }, () => {
    for (const name of scripts.filter(which)) {
      // Generous: on a loaded 2-core machine the baseline bench (three gateway benches) took 144 s.
      test(`npm run ${name} runs in its smoke size`, { timeout: 480_000 }, async (t) => {
        const { code, out } = await run(name, BENCH_SMOKE[name] ?? {}, t.signal);
        assert.equal(code, 0, `${name} exited ${code}:\n${out}`);
      });
    }
  });
}

/**
 * Runs `npm run <name>` in a process group of its own; resolves with its exit code and output. The whole
 * group is killed when it ends or when the test is given up on (its timeout aborts `signal`).
 */
function run(name: string, env: Record<string, string>, signal: AbortSignal) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn("npm", ["run", name], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        // The suite's Postgres and Redis, not whatever the developer's defaults point at.
        ...(process.env.TEST_DATABASE_URL ? { DATABASE_URL: process.env.TEST_DATABASE_URL } : {}),
        ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const keep = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const killGroup = () => {
      try {
        process.kill(-(child.pid as number), "SIGKILL"); // whatever it left running
      } catch {}
    };
    signal.addEventListener("abort", killGroup, { once: true });
    child.once("exit", (code) => {
      killGroup();
      resolve({ code, out });
    });
  });
}
