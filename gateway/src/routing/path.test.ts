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
