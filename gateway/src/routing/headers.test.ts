import assert from "node:assert/strict";
import { test } from "node:test";
import { readRequestHeaders } from "./headers.ts";

test("one pass reads the key, the idempotency keys and the body framing, and keeps the rest raw", () => {
  const h = readRequestHeaders([
    "Host",
    "gw.example",
    "X-Gateway-Api-Key",
    "gwk_secret",
    "Idempotency-Key",
    "a, b",
    "X-Custom",
    "Value  kept",
    "Content-Length",
    "5",
  ]);
  assert.equal(h.apiKey, "gwk_secret");
  assert.deepEqual(h.idempotencyKeys, ["a, b"]);
  assert.equal(h.hasBody, true);
  assert.deepEqual(h.forward, ["Idempotency-Key", "a, b", "X-Custom", "Value  kept", "Content-Length", "5"]);
});

test("a key sent twice is never a key; repeated idempotency keys are all reported", () => {
  const h = readRequestHeaders([
    "x-gateway-api-key",
    "k1",
    "idempotency-key",
    "a",
    "x-gateway-api-key",
    "k1",
    "idempotency-key",
    "b",
  ]);
  assert.equal(h.apiKey, null);
  assert.deepEqual(h.idempotencyKeys, ["a", "b"]);
  assert.equal(h.hasBody, false);
});

test("hop-by-hop headers and every header named in Connection are dropped, whatever their case", () => {
  const h = readRequestHeaders([
    "x-secret-hop",
    "1",
    "Connection",
    "keep-alive, X-Secret-Hop",
    "Keep-Alive",
    "timeout=5",
    "Transfer-Encoding",
    "chunked",
    "TE",
    "trailers",
    "Upgrade",
    "h2c",
    "Proxy-Authorization",
    "Basic x",
    "Expect",
    "100-continue",
    "Accept",
    "*/*",
  ]);
  assert.equal(h.hasBody, true);
  assert.deepEqual(h.forward, ["Accept", "*/*"]);
});

test("Content-Length 0 is no body", () => {
  assert.equal(readRequestHeaders(["content-length", "0"]).hasBody, false);
});
