import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../config.ts";

const base = {
  DATABASE_URL: "postgres://x@127.0.0.1/db",
  REDIS_URL: "redis://127.0.0.1:6379",
  DEMO_MODE: "1",
};

test("ETH config: network follows NETWORK; malformed secrets are refused", () => {
  assert.equal(loadConfig(base).eth.network, "hoodi");
  assert.throws(() => loadConfig({ ...base, ETH_OPERATOR_SEED: "ab".repeat(31) }), /ETH_OPERATOR_SEED/);
  assert.throws(
    () => loadConfig({ ...base, ETH_KEY_ENCRYPTION_KEY: "ab".repeat(31) }),
    /ETH_KEY_ENCRYPTION_KEY/,
  );
});
