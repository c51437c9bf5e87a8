import assert from "node:assert/strict";
import { test } from "node:test";
import { joinBasePath, parseGatewayPath } from "./path.ts";

const noKey = { refused: "PROVIDER_KEY_REQUIRED" };
// Regression: a refused upstream path answered "Provider key is required" although the key was there.
const refused = { refused: "PATH_REFUSED" };
const pathOf = (url: string) => {
  const p = parseGatewayPath(url);
  return "refused" in p ? p : p.path;
};

test("splits the provider key and keeps the rest and the query", () => {
  assert.deepEqual(parseGatewayPath("/gateway/rpc/v1/a?x=1&y"), {
    providerKey: "rpc",
    path: "/v1/a",
    query: "?x=1&y",
  });
  assert.deepEqual(parseGatewayPath("/gateway/rpc"), { providerKey: "rpc", path: "/", query: "" });
  assert.deepEqual(parseGatewayPath("/gateway/rpc/"), { providerKey: "rpc", path: "/", query: "" });
  assert.deepEqual(parseGatewayPath("/gateway/"), noKey);
  assert.deepEqual(parseGatewayPath("/gateway"), noKey);
  assert.deepEqual(parseGatewayPath("/other/rpc/x"), noKey);
});

test("resolves dot segments but refuses escaping the base path", () => {
  assert.deepEqual(pathOf("/gateway/rpc/a/../b/./c"), "/b/c");
  assert.deepEqual(parseGatewayPath("/gateway/rpc/.."), refused);
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a/../../etc/passwd"), refused);
  assert.deepEqual(parseGatewayPath("/gateway/rpc/%2e%2e/x"), refused);
  assert.deepEqual(parseGatewayPath("/gateway/rpc/%2E./x"), refused);
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a%2f..%2f..%2fx"), refused);
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
  assert.deepEqual(parseGatewayPath("/gateway/.rpc/x"), noKey);
  assert.deepEqual(parseGatewayPath(`/gateway/${"a".repeat(101)}/x`), noKey);
  assert.deepEqual(parseGatewayPath("/gateway//x"), noKey);
});

test("dots, percent escapes and backslashes still go through resolution", () => {
  assert.deepEqual(pathOf("/gateway/rpc/a/."), "/a/");
  assert.deepEqual(pathOf("/gateway/rpc/a/b/%2E%2e"), "/a/");
  assert.deepEqual(pathOf("/gateway/rpc/a.b/c%20d/e\\f"), "/a.b/c%20d/e\\f");
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a\\..\\..\\x"), refused);
  assert.deepEqual(parseGatewayPath("/gateway/rpc/a%5C%2e%2E%5cx"), refused);
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
    assert.deepEqual(parseGatewayPath(path), refused, path);
  // In the query they are the provider's business.
  assert.deepEqual(pathOf("/gateway/rpc/a?x=;%00%25"), "/a");
});
