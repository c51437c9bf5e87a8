import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import postgres from "postgres";
import { postgresDataDir, startPostgres } from "../../scripts/lib/infra.ts";
import { freePort } from "../../scripts/lib/ports.ts";

const asRoot = process.getuid?.() === 0;

test("as root, a clone in a folder the postgres user cannot enter (mode 0700) still gets a working project-local Postgres", {
  skip: asRoot ? false : "only root runs initdb through the postgres user",
}, async () => {
  // Stands for /root/clone: a root-owned 0700 folder.
  const home = mkdtempSync(path.join(tmpdir(), "root-home-"));
  chmodSync(home, 0o700);
  const clone = path.join(home, "clone");
  const dir = postgresDataDir(clone);
  assert.ok(!dir.startsWith(home), `data directory ${dir} is outside the unreachable clone`);
  assert.equal(postgresDataDir(clone), dir, "the same clone keeps the same data directory");
  const pg = await startPostgres({ dir, port: await freePort() });
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select 1 + 1 as two`;
    assert.equal(row?.two, 2);
  } finally {
    await sql.end();
    pg.stop();
    rmSync(path.dirname(dir), { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

test("a clone the postgres user can reach keeps its data under .data/pg", () => {
  const clone = mkdtempSync(path.join(tmpdir(), "clone-"));
  chmodSync(clone, 0o755);
  try {
    assert.equal(postgresDataDir(clone), path.join(clone, ".data", "pg"));
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
});
