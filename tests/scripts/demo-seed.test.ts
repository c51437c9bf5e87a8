import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import { organisations } from "@stake/db/schema/accounts";
import postgres from "postgres";
import { DEMO, ensureDemoDatabase, refuseDemoDatabase, seedDemo } from "../../scripts/seed-demo.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { runEntry } from "../helpers/entry.ts";
import { adminUrl, createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { testRedisUrl } from "../helpers/redis.ts";

const CHECKOUT = "c0ffee0001";

// `npm start` seeds public credentials (a demo organisation, key and gateway user): never on mainnet and
// never into a database that holds anything but its own demo data.
let fresh: TestDatabase;
let occupied: TestDatabase;
before(async () => {
  [fresh, occupied] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  await makeOrganisation(occupied.db, { email: "real-customer@example.com" });
});
after(async () => {
  await Promise.all([fresh.drop(), occupied.drop()]);
});

const emails = async (db: TestDatabase) =>
  (await db.db.select({ email: organisations.email }).from(organisations)).map((r) => r.email).sort();

test("npm start refuses NETWORK=mainnet before touching any database", async () => {
  const r = await runEntry("scripts/up.ts", [], {
    NETWORK: "mainnet",
    DATABASE_URL: fresh.url,
    REDIS_URL: testRedisUrl(),
  });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /refuses NETWORK=mainnet/);
  assert.deepEqual(await emails(fresh), [], "nothing seeded");
});

test("npm start refuses to seed demo credentials into a database with real accounts", async () => {
  const r = await runEntry("scripts/up.ts", [], { DATABASE_URL: occupied.url, REDIS_URL: testRedisUrl() });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /holds real accounts \(e\.g\. real-customer@example\.com\)/);
  assert.deepEqual(await emails(occupied), ["real-customer@example.com"], "no demo organisation added");
});

test("a fresh database, or one holding only the demo, may be seeded", async () => {
  assert.equal(await refuseDemoDatabase(fresh.db, CHECKOUT), null);
  await seedDemo(fresh.db);
  assert.equal(
    await refuseDemoDatabase(fresh.db, CHECKOUT),
    null,
    "a restart re-seeds its own demo database",
  );
  assert.match((await refuseDemoDatabase(occupied.db, CHECKOUT)) ?? "", /real accounts/);
});

test("the demo's own database comes up again after a sign-up in it; created once, kept across restarts", async () => {
  // Named like a test database, so a killed run's leftover is swept like theirs.
  const name = `staking_test_${Date.now().toString(36)}_de30`;
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  try {
    const own = await ensureDemoDatabase(adminUrl(), name, CHECKOUT);
    assert.ok("url" in own, "created for this checkout");
    const { url } = own;
    await runMigrations(url);
    const demoDb = createDb(url, { max: 1 });
    try {
      await seedDemo(demoDb.db);
      // What a dashboard sign-up leaves: an account that is not the demo's.
      await makeOrganisation(demoDb.db, { email: "someone-trying-it@example.com" });
      assert.equal(
        await refuseDemoDatabase(demoDb.db, CHECKOUT),
        null,
        "its own database, whatever it holds",
      );
      assert.deepEqual(
        await ensureDemoDatabase(adminUrl(), name, CHECKOUT),
        { url },
        "the same database on the next start",
      );
      // A second checkout on the same server, told the same name: it is refused, by the id written in.
      assert.deepEqual(await ensureDemoDatabase(adminUrl(), name, "other0ck"), { ownedBy: CHECKOUT });
      assert.match(
        (await refuseDemoDatabase(demoDb.db, "other0ck")) ?? "",
        new RegExp(`demo database of another checkout \\(${CHECKOUT}\\)`),
      );
      await seedDemo(demoDb.db);
      assert.deepEqual(
        (await demoDb.db.select({ email: organisations.email }).from(organisations))
          .map((r) => r.email)
          .sort(),
        [DEMO.email, "someone-trying-it@example.com"],
        "the sign-up is still there, and the demo seeded once",
      );
    } finally {
      await demoDb.close();
    }
  } finally {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
});

test("a re-seed keeps the demo key it is given while it works, and replaces one that does not", async () => {
  const first = await seedDemo(fresh.db);
  const again = await seedDemo(fresh.db, first.apiKey);
  assert.equal(again.apiKey, first.apiKey, "the printed key survives a restart");
  assert.equal(again.keyId, first.keyId);
  const stranger = await seedDemo(fresh.db, "stk_notAKeyOfThisDatabase");
  assert.notEqual(stranger.apiKey, first.apiKey, "a key this database never issued is not kept");
  const after = await seedDemo(fresh.db, first.apiKey);
  assert.notEqual(after.apiKey, first.apiKey, "a revoked key is not revived");
});
