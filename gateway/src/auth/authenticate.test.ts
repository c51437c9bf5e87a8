import assert from "node:assert/strict";
import { test } from "node:test";
import { issueApiKey } from "@stake/db/api-key";
import { authenticate, type KeyRecord } from "./authenticate.ts";
import { ReadThroughCache } from "./cache.ts";

test("a key that is not shaped like an issued one is refused before any lookup", async () => {
  const looked: string[] = [];
  const keys = new ReadThroughCache<KeyRecord>(60_000, async (hash) => {
    looked.push(hash);
    return { found: false };
  });
  for (const junk of [
    "",
    "x".repeat(15_000),
    "stk_" + "1".repeat(44),
    "gwk_0OIl",
    "gwk_abc",
    `${issueApiKey("gateway").key}0`,
  ]) {
    assert.deepEqual(await authenticate(junk, keys), { ok: false, code: "UNAUTHORIZED" }, junk.slice(0, 20));
  }
  assert.deepEqual(looked, [], "no lookup, no cache entry");
  assert.deepEqual(await authenticate(issueApiKey("gateway").key, keys), { ok: false, code: "UNAUTHORIZED" });
  assert.equal(looked.length, 1, "a well-formed unknown key is looked up");
});
