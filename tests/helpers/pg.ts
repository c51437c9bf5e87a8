import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import postgres from "postgres";

/**
 * Tests never touch a developer's data: each test file gets a fresh database cloned from a migrated
 * template (`CREATE DATABASE … TEMPLATE` copies files, so it is fast), dropped when the file is done.
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

/**
 * Drops and re-creates the migrated template (the test runner calls this once per run), and sweeps test
 * databases left by killed runs. The sweep does not force: a database still in use by a run elsewhere
 * refuses the drop and is left alone.
 */
export async function resetTestTemplate(url = adminUrl()): Promise<void> {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const stale = await admin<{ datname: string }[]>`
      select datname from pg_database where datname like 'staking\_test\_%' and datname <> ${TEMPLATE}`;
    for (const { datname } of stale)
      await admin.unsafe(`drop database if exists "${datname}"`).catch(() => {});
    await admin.unsafe(`drop database if exists ${TEMPLATE} with (force)`);
    await admin.unsafe(`create database ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  await runMigrations(withDatabase(url, TEMPLATE));
}

async function ensureTemplate(admin: postgres.Sql, url: string): Promise<void> {
  await admin`select pg_advisory_lock(727274)`;
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${TEMPLATE}`;
    if (!found) {
      await admin.unsafe(`create database ${TEMPLATE}`);
      await runMigrations(withDatabase(url, TEMPLATE));
    }
  } finally {
    await admin`select pg_advisory_unlock(727274)`;
  }
}

/** A fresh migrated database for one test file; call `drop()` in `after`. */
export async function createTestDatabase() {
  const url = adminUrl();
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await ensureTemplate(admin, url);
  const name = `staking_test_${randomBytes(6).toString("hex")}`;
  await admin.unsafe(`create database ${name} template ${TEMPLATE}`);
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
