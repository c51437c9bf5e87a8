import assert from "node:assert/strict";
import { test } from "node:test";
import { readRequestHeaders, responseHeaders, upgradeProtocol } from "./headers.ts";

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

test("a Connection value names headers before or after it; keep-alive and close name headers too", () => {
  const h = readRequestHeaders([
    "X-A",
    "1",
    "Connection",
    "KEEP-ALIVE",
    "Close",
    "2",
    "connection",
    " x-a ,x-b",
    "X-B",
    "3",
    "Connection",
    "close",
    "Accept",
    "*/*",
  ]);
  assert.deepEqual(h.forward, ["Accept", "*/*"]);
  assert.deepEqual(readRequestHeaders(["Close", "2", "Connection", "Keep-Alive"]).forward, ["Close", "2"]);
});

const buffers = (raw: string[]) => raw.map((s) => Buffer.from(s, "latin1"));

test("response headers come back as byte-identical latin1 strings minus hop-by-hop ones, in order", () => {
  assert.deepEqual(
    responseHeaders(
      buffers([
        "Content-Type",
        "text/plain; charset=\xe9",
        "CONNECTION",
        "Keep-Alive",
        "X-\xc9t\xe9",
        "caf\xe9 \xff",
        "Keep-Alive",
        "timeout=5",
        "Transfer-Encoding",
        "chunked",
        "tE",
        "trailers",
        "Upgrade",
        "h2c",
        "Trailer",
        "x",
        "Proxy-Connection",
        "close",
        "Date",
        "Tue, 14 May 2024 10:00:00 GMT",
      ]),
    ),
    [
      "Content-Type",
      "text/plain; charset=\xe9",
      "X-\xc9t\xe9",
      "caf\xe9 \xff",
      "Date",
      "Tue, 14 May 2024 10:00:00 GMT",
    ],
  );
});

test("response headers named in Connection go, before or after it, and only names equal once lower-cased", () => {
  assert.deepEqual(
    responseHeaders(
      buffers([
        "X-A",
        "1",
        "Connection",
        "close, X-b",
        "Close",
        "2",
        "x-b",
        "3",
        "T\xc9",
        "4",
        "keep\ralive",
        "5",
        "Connection",
        "X-A",
        "X-C",
        "6",
      ]),
    ),
    ["T\xc9", "4", "keep\ralive", "5", "X-C", "6"],
  );
});

test("fix: the client's Forwarded and X-Forwarded-* never reach the provider; the gateway's own do", () => {
  const h = readRequestHeaders(
    [
      "Host",
      "gw.example",
      "X-Forwarded-For",
      "10.0.0.1",
      "x-forwarded-host",
      "internal.admin",
      "Forwarded",
      "for=10.0.0.1;host=internal.admin;proto=https",
      "X-Forwarded-Proto",
      "https",
      "X-Real-IP",
      "10.0.0.1",
      "X-Custom",
      "kept",
    ],
    { address: "203.0.113.9", encrypted: false },
  );
  assert.deepEqual(h.forward, [
    "X-Custom",
    "kept",
    "x-forwarded-for",
    "203.0.113.9",
    "x-forwarded-proto",
    "http",
    "x-forwarded-host",
    "gw.example",
  ]);
});

test("regression: WebSocket named anywhere in the Upgrade list, or in a second Upgrade header, is a WebSocket", () => {
  for (const raw of [
    ["Upgrade", "websocket"],
    ["upgrade", "WebSocket, x"],
    ["Upgrade", "x, websocket/13"],
    ["Upgrade", "x", "UPGRADE", "websocket"],
  ])
    assert.deepEqual(upgradeProtocol(raw), { protocol: "websocket", websocket: true }, raw.join(" "));
  assert.deepEqual(upgradeProtocol(["Upgrade", "h2c", "Upgrade", "x"]), {
    protocol: "h2c, x",
    websocket: false,
  });
  assert.deepEqual(upgradeProtocol(["Upgrade", "websockets"]), { protocol: "websockets", websocket: false });
});
