import assert from "node:assert/strict";
import { test } from "node:test";
import { joinBasePath, parseGatewayPath } from "./path.ts";

test("splits the provider key and keeps the rest and the query", () => {
  assert.deepEqual(parseGatewayPath("/gateway/rpc/v1/a?x=1&y"), {
    providerKey: "rpc",
    path: "/v1/a",
    query: "?x=1&y",
  });
  assert.deepEqual(parseGatewayPath("/gateway/rpc"), { providerKey: "rpc", path: "/", query: "" });
  assert.deepEqual(parseGatewayPath("/gateway/rpc/"), { providerKey: "rpc", path: "/", query: "" });
  assert.equal(parseGatewayPath("/gateway/"), null);
  assert.equal(parseGatewayPath("/gateway"), null);
  assert.equal(parseGatewayPath("/other/rpc/x"), null);
});

test("resolves dot segments but refuses escaping the base path", () => {
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a/../b/./c")?.path, "/b/c");
  assert.equal(parseGatewayPath("/gateway/rpc/.."), null);
  assert.equal(parseGatewayPath("/gateway/rpc/a/../../etc/passwd"), null);
  assert.equal(parseGatewayPath("/gateway/rpc/%2e%2e/x"), null);
  assert.equal(parseGatewayPath("/gateway/rpc/%2E./x"), null);
  assert.equal(parseGatewayPath("/gateway/rpc/a%2f..%2f..%2fx"), null);
  assert.equal(joinBasePath("/v1/", "/x"), "/v1/x");
  assert.equal(joinBasePath("/", "/x"), "/x");
});

test("a path without dots, percent signs or backslashes is kept as sent, empty segments included", () => {
  assert.deepEqual(parseGatewayPath("/gateway/rpc//"), { providerKey: "rpc", path: "//", query: "" });
  assert.deepEqual(parseGatewayPath("/gateway/rpc//a//b/?q=/../x"), {
    providerKey: "rpc",
    path: "//a//b/",
    query: "?q=/../x",
  });
  assert.deepEqual(parseGatewayPath("/gateway/a.b/v1/x"), { providerKey: "a.b", path: "/v1/x", query: "" });
  assert.deepEqual(parseGatewayPath("/gateway/rpc?a=b"), { providerKey: "rpc", path: "/", query: "?a=b" });
  assert.equal(parseGatewayPath("/gateway/.rpc/x"), null);
  assert.equal(parseGatewayPath(`/gateway/${"a".repeat(101)}/x`), null);
  assert.equal(parseGatewayPath("/gateway//x"), null);
});

test("dots, percent escapes and backslashes still go through resolution", () => {
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a/.")?.path, "/a/");
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a/b/%2E%2e")?.path, "/a/");
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a.b/c%20d/e\\f")?.path, "/a.b/c%20d/e\\f");
  assert.equal(parseGatewayPath("/gateway/rpc/a\\..\\..\\x"), null);
  assert.equal(parseGatewayPath("/gateway/rpc/a%5C%2e%2E%5cx"), null);
});

test("fix: `;`, `%00` and a double-encoded `%25` never reach the provider", () => {
  for (const path of [
    "/gateway/rpc/..;/admin",
    "/gateway/rpc/a/..;/..;/admin",
    "/gateway/rpc/a;jsessionid=1/b",
    "/gateway/rpc/a%00/b",
    "/gateway/rpc/%252e%252e/admin",
    "/gateway/rpc/a%25/b",
  ])
    assert.equal(parseGatewayPath(path), null, path);
  // In the query they are the provider's business.
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a?x=;%00%25")?.path, "/a");
});
