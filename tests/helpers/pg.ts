import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import postgres from "postgres";

/**
 * Tests never touch a developer's data: each test file gets a fresh database cloned from a migrated
 * template (`CREATE DATABASE … TEMPLATE`, a file copy, so it is fast), dropped when the file is done.
 * The template is named after the migration journal, so checkouts with different migrations (branches,
 * worktrees sharing one Postgres) never reset or clone each other's template.
 */
const TEMPLATE = `staking_test_template_${createHash("sha256")
  .update(readFileSync(new URL("../../db/migrations/meta/_journal.json", import.meta.url)))
  .digest("hex")
  .slice(0, 12)}`;

export function adminUrl(): string {
  return process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Test databases carry their creation time, so a sweep can tell a killed run's leftovers from a live run's. */
const STALE_AFTER_MS = 2 * 60 * 60 * 1000;

function isStale(datname: string, now: number): boolean {
  const stamp = /^staking_test_([0-9a-z]+)_[0-9a-f]+$/.exec(datname)?.[1];
  return stamp === undefined || now - Number.parseInt(stamp, 36) > STALE_AFTER_MS;
}

/**
 * Every change to the template, and every clone of it, happens under one advisory lock: runs on one
 * Postgres with the same migrations share the template, so one run's reset must not race another's
 * check-then-create or clone.
 */
async function withTemplateLock<T>(admin: postgres.Sql, fn: () => Promise<T>): Promise<T> {
  await admin`select pg_advisory_lock(727274)`;
  try {
    return await fn();
  } finally {
    await admin`select pg_advisory_unlock(727274)`;
  }
}

/**
 * Drops and re-creates the migrated template (the test runner calls this once per run), and sweeps test
 * databases left by killed runs: only those over two hours old, and never another checkout's template,
 * so runs in other worktrees sharing this Postgres are not disturbed.
 */
export async function resetTestTemplate(url = adminUrl()): Promise<void> {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const now = Date.now();
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database
      where datname like 'staking\_test\_%' and datname not like 'staking\_test\_template\_%'`;
    for (const { datname } of stale.filter((d) => isStale(d.datname, now)))
      await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
    await withTemplateLock(admin, async () => {
      await admin.unsafe(`drop database if exists ${TEMPLATE} with (force)`);
      await admin.unsafe(`create database ${TEMPLATE}`);
      await runMigrations(withDatabase(url, TEMPLATE));
    });
  } finally {
    await admin.end();
  }
}

/**
 * A fresh migrated database for one test file; call `drop()` in `after`. `{ empty: true }`: no tables at
 * all, for the migration tests.
 */
export async function createTestDatabase(options: { empty?: boolean } = {}) {
  const url = adminUrl();
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  const name = `staking_test_${Date.now().toString(36)}_${randomBytes(6).toString("hex")}`;
  if (options.empty) await admin.unsafe(`create database ${name}`);
  else
    await withTemplateLock(admin, async () => {
      const [found] = await admin`select 1 from pg_database where datname = ${TEMPLATE}`;
      if (!found) {
        await admin.unsafe(`create database ${TEMPLATE}`);
        await runMigrations(withDatabase(url, TEMPLATE));
      }
      // From Postgres 15 a clone writes every block of the template through the WAL unless told to copy
      // its files: 0.24 s of the server's CPU a clone, 0.10 s as a file copy.
      const [server] = await admin<{ version: number }[]>`
        select current_setting('server_version_num')::int as version`;
      const strategy = server!.version >= 150000 ? " strategy file_copy" : "";
      await admin.unsafe(`create database ${name} template ${TEMPLATE}${strategy}`);
    });
  const databaseUrl = withDatabase(url, name);
  const client = createDb(databaseUrl, { max: 10, applicationName: "tests" });
  return {
    url: databaseUrl,
    ...client,
    async drop() {
      await client.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
