import assert from "node:assert/strict";
import { test } from "node:test";
import { AREA_NAMES, loadConfig } from "./config.ts";

const base = { DATABASE_URL: "postgres://x@127.0.0.1/db", REDIS_URL: "redis://127.0.0.1:6379" };
const real = {
  GATEWAY_JWT_SECRET: "a-real-secret-of-at-least-thirty-two-characters",
  ETH_OPERATOR_SEED: `0x${"a1".repeat(32)}`,
  ETH_KEY_ENCRYPTION_KEY: "b2".repeat(32),
};
const ALL = ["GATEWAY_JWT_SECRET", "ETH_OPERATOR_SEED", "ETH_KEY_ENCRYPTION_KEY"] as const;

/** The variables whose demo value the configuration refuses, for the given networks. */
function refused(networks: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...networks });
    return [];
  } catch (err) {
    return ALL.filter((v) => (err as Error).message.includes(`${v}: the public demo value is refused`));
  }
}

// Regression: the demo JWT secret signed valid tokens on the default (testnet)
// configuration, whose gateway bills real coins whatever NETWORK says.
for (const v of ALL) {
  test(`fix: ${v} left at its public demo value is refused unless DEMO_MODE is on`, () => {
    const oneDemo = { ...real, [v]: undefined };
    assert.deepEqual(refused(oneDemo), [v], "the default configuration");
    assert.deepEqual(refused({ ...oneDemo, DEMO_MODE: "0" }), [v], "demo mode off");
    assert.deepEqual(refused({ ...oneDemo, DEMO_MODE: "1" }), [], "demo mode on (npm start)");
    assert.throws(
      () => loadConfig({ ...base, ...oneDemo }),
      new RegExp(`${v}: the public demo value is refused unless DEMO_MODE=1`),
    );
  });
}

test("every demo secret is refused wherever real funds can be involved, judged on the resolved networks", () => {
  assert.deepEqual(refused({ DEMO_MODE: "1" }), [], "testnet demo: all defaults accepted");
  assert.deepEqual(refused({ DEMO_MODE: "1", ETH_NETWORK: "hoodi" }), []);
  assert.deepEqual(refused({ DEMO_MODE: "1", NETWORK: "mainnet" }), [...ALL], "demo mode cannot lift it");
  assert.deepEqual(refused({ NETWORK: "mainnet" }), [...ALL]);
  assert.deepEqual(refused({ NETWORK: "mainnet", ETH_NETWORK: "hoodi" }), [...ALL], "NETWORK alone decides");
  assert.deepEqual(
    refused({ DEMO_MODE: "1", NETWORK: "testnet", ETH_NETWORK: "mainnet" }),
    ["ETH_OPERATOR_SEED", "ETH_KEY_ENCRYPTION_KEY"],
    "mainnet deposits on a testnet deployment: the validator keys are real",
  );
  for (const v of ALL) {
    const oneDemo = { ...real, [v]: undefined };
    assert.deepEqual(refused({ NETWORK: "mainnet", ...oneDemo }), [v], `${v} alone left at its demo value`);
  }
  const ok = loadConfig({ ...base, NETWORK: "mainnet", ...real });
  assert.equal(ok.eth.network, "mainnet");
  assert.equal(ok.eth.operatorSeed, "a1".repeat(32));
});

test("CONTROL_PLANE_AREAS: all areas by default, a subset in registration order, an unknown name refused", () => {
  assert.deepEqual(loadConfig({ ...base, ...real }).areas, [...AREA_NAMES]);
  assert.deepEqual(loadConfig({ ...base, ...real, CONTROL_PLANE_AREAS: " sui-rewards,account-v2 " }).areas, [
    "account-v2",
    "sui-rewards",
  ]);
  assert.throws(
    () => loadConfig({ ...base, ...real, CONTROL_PLANE_AREAS: "account-v2,sui" }),
    /CONTROL_PLANE_AREAS: unknown area sui; areas: account-v2, account-v1/,
  );
});
