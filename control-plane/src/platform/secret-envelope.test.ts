import assert from "node:assert/strict";
import { createCipheriv, randomBytes } from "node:crypto";
import { test } from "node:test";
import { createKeyCipher } from "./secret-envelope.ts";

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

test("only a full 16-byte GCM tag is accepted (a 4-byte tag can be forged by trial)", () => {
  const kek = "11".repeat(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", Buffer.from(kek, "hex"), iv, { authTagLength: 4 });
  cipher.setAAD(Buffer.from("0xaa"));
  const ct = Buffer.concat([cipher.update(new Uint8Array(32).fill(9)), cipher.final()]);
  const short = ["v1", iv, cipher.getAuthTag(), ct].map((p) =>
    typeof p === "string" ? p : p.toString("base64url"),
  );
  assert.equal(Buffer.from(short[2] ?? "", "base64url").length, 4);
  assert.throws(() => createKeyCipher(kek).decrypt(short.join("."), "0xaa"), /tag must be 16 bytes/);
});
