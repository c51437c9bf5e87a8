import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../config.ts";
import { isEthAddress, toChecksumAddress } from "./address.ts";

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

test("EIP-55 addresses", () => {
  assert.equal(
    toChecksumAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"),
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
  );
  assert.ok(isEthAddress("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359"));
  assert.ok(isEthAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"));
  assert.ok(!isEthAddress("0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d358".replace("fB", "Fb")));
  assert.ok(!isEthAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d35"));
});
