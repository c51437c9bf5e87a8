import assert from "node:assert/strict";
import { pbkdf2 } from "node:crypto";
import { test } from "node:test";
import { createPasswordHasher } from "./password.ts";

// Regression: a burst of argon2 hashes took every libuv thread, so anything else on the
// pool (fs, dns.lookup, crypto) waited for the whole burst.
test("fix: a burst of argon2 hashes leaves libuv's thread pool free for other work", async () => {
  const hasher = createPasswordHasher({ memoryCost: 8192, timeCost: 3, concurrency: 2 });
  let hashed = 0;
  // Four times the pool's default 4 threads, all asked for at once.
  const burst = Array.from({ length: 16 }, (_, i) => hasher.hash(`password-${i}`).then(() => hashed++));
  // A one-iteration pbkdf2 queued behind the burst: it runs on the same pool.
  const doneAfter = await new Promise<number>((resolve, reject) =>
    pbkdf2("x", "salt", 1, 32, "sha256", (err) => (err ? reject(err) : resolve(hashed))),
  );
  await Promise.all(burst);
  assert.ok(doneAfter <= 2, `the pool was free only after ${doneAfter} of 16 hashes had finished`);
});
