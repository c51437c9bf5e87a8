import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "../../scripts/lib/infra.ts";

// `npm start` and `npm test` run their TypeScript entry in a child (scripts/lib/bootstrap.mjs). A supervisor
// that signals only the npm-started process must still stop the entry, or it orphans every server it started.
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`runTs passes ${signal} on to its entry and exits with the entry's code`, async () => {
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
    const ready = new Promise<void>((resolve) =>
      parent.stdout.on("data", (d) => {
        out += d;
        if (out.includes("READY")) resolve();
      }),
    );
    await ready;
    parent.kill(signal);
    const code = await new Promise<number | null>((resolve) => parent.on("exit", (c) => resolve(c)));
    assert.match(out, new RegExp(`STOPPED ${signal}`));
    assert.equal(code, 3);
  });
}
