import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "../../scripts/lib/infra.ts";
import { eventually } from "../helpers/eventually.ts";

// `npm start` and `npm test` run their TypeScript entry in a child (scripts/lib/bootstrap.mjs). A supervisor
// that signals only the npm-started process must still stop the entry, or it orphans every server it started.
function startBootstrap() {
  const bootstrap = path.join(ROOT, "scripts/lib/bootstrap.mjs");
  const parent = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { runTs } from ${JSON.stringify(bootstrap)}; runTs("tests/scripts/fixtures/until-signal.ts");`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  parent.stdout.on("data", (d) => {
    out += d;
  });
  return { parent, output: () => out };
}

test("runTs's entry stops as on SIGTERM when the bootstrap is SIGKILLed (its IPC lifeline closes)", async () => {
  const { parent, output } = startBootstrap();
  await eventually(() => output().includes("READY"), { what: "the entry to start" });
  parent.kill("SIGKILL");
  // The entry still holds the pipe: what it prints on its way out arrives.
  await eventually(() => output().includes("STOPPED SIGTERM"), { what: "the entry to stop" });
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`runTs passes ${signal} on to its entry and exits with the entry's code`, async () => {
    const { parent, output } = startBootstrap();
    await eventually(() => output().includes("READY"), { what: "the entry to start" });
    const exited = new Promise<number | null>((resolve) => parent.on("exit", (c) => resolve(c)));
    parent.kill(signal);
    const code = await exited;
    assert.match(output(), new RegExp(`STOPPED ${signal}`));
    assert.equal(code, 3);
  });
}
