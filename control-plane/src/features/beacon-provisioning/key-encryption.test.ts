import assert from "node:assert/strict";
import { test } from "node:test";
import { createKeyCipher } from "./key-encryption.ts";

test("AES-256-GCM envelope round-trips and is bound to the pubkey and the KEK", () => {
  const c = createKeyCipher("11".repeat(32));
  const secret = new Uint8Array(32).fill(9);
  const env = c.encrypt(secret, "0xaa");
  assert.notEqual(c.encrypt(secret, "0xaa"), env);
  assert.deepEqual(c.decrypt(env, "0xaa"), secret);
  assert.throws(() => c.decrypt(env, "0xbb"));
  assert.throws(() => createKeyCipher("22".repeat(32)).decrypt(env, "0xaa"));
  assert.throws(() => createKeyCipher("11"));
});
