import assert from "node:assert/strict";
import { test } from "node:test";
import { decryptKeystore, encryptKeystore, normalizePassword } from "./keystore.ts";

// EIP-2335 PBKDF2 test vector.
const PASSWORD =
  "\u{1D531}\u{1D522}\u{1D530}\u{1D531}\u{1D52D}\u{1D51E}\u{1D530}\u{1D530}\u{1D534}\u{1D52C}\u{1D52F}\u{1D521}\u{1F511}";
const SECRET = Buffer.from("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f", "hex");

test("EIP-2335 pbkdf2 vector", () => {
  assert.equal(normalizePassword(PASSWORD).toString("utf8"), "testpassword\u{1F511}");
  const ks = encryptKeystore({
    secret: SECRET,
    password: PASSWORD,
    pubkey:
      "9612d7a727c9d0a22e185a1c768478dfe919cada9266988cb32359c11f2b7b27f4ae4040902382ae2910c15e2b420d07",
    path: "m/12381/60/0/0",
    salt: Buffer.from("d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3", "hex"),
    iv: Buffer.from("264daa3f303d7259501c93d997d84fe6", "hex"),
  });
  assert.equal(
    ks.crypto.checksum.message,
    "8a9f5d9912ed7e75ea794bc5a89bca5f193721d30868ade6f73043c6ea6febf1",
  );
  assert.equal(ks.crypto.cipher.message, "cee03fde2af33149775b7223e7845e4fb2c8ae1792e5f99fe9ecf474cc8c16ad");
  assert.deepEqual(Buffer.from(decryptKeystore(ks, PASSWORD)), SECRET);
  assert.throws(() => decryptKeystore(ks, "wrong"), /password/);
});
