import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "../../scripts/lib/infra.ts";
import { eventually } from "../helpers/eventually.ts";

// Every process a test or `npm start` spawns dies with its owner (scripts/lib/owned.ts), however the owner
// ends; `ps` must show nothing left. The owner here starts a real anvil and a shell with a child of its own.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function startOwner(mode: "hang" | "throw" | "orphan") {
  const owner = spawn(
    process.execPath,
    ["--import", "tsx", path.join(ROOT, "tests/scripts/fixtures/owner.ts")],
    {
      cwd: ROOT,
      env: { ...process.env, MODE: mode },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  const exited = new Promise<number | null>((resolve) => owner.once("exit", (code) => resolve(code)));
  let out = "";
  owner.stdout.on("data", (d) => (out += d));
  const pids = await eventually(() => /PIDS ([\d ]+)\n/.exec(out)?.[1]?.split(" ").map(Number), {
    what: "the owner to start its children",
  });
  assert.equal(pids.length, 3);
  return { owner, pids, exited };
}

async function assertAllGone(pids: number[], after: string) {
  await eventually(() => pids.every((p) => !alive(p)), {
    what: `every child to be gone ${after} (still alive: ${pids.filter(alive).join(", ")})`,
  });
}

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  test(`an owner ended by ${signal} leaves no child behind: anvil, a child and its own child`, async () => {
    const { owner, pids, exited } = await startOwner("hang");
    assert.ok(pids.every(alive), "all started");
    owner.kill(signal);
    await exited;
    await assertAllGone(pids, `after ${signal}`);
  });
}

test("a setup that throws after starting its children leaves none behind", async () => {
  const { pids, exited } = await startOwner("throw");
  assert.notEqual(await exited, 0);
  await assertAllGone(pids, "after the failed setup");
});

test("a child that exits takes what it left in its process group with it; its owner's other children live on", async () => {
  const { owner, pids, exited } = await startOwner("orphan");
  const [anvil, shell, grandchild] = pids as [number, number, number];
  await assertAllGone([shell, grandchild], "after the shell exited");
  assert.ok(alive(anvil), "anvil still runs: its owner does");
  owner.kill("SIGKILL");
  await exited;
  await assertAllGone([anvil], "after its owner was killed");
});
