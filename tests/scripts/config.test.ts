import assert from "node:assert/strict";
import { test } from "node:test";
import { loadConfig } from "../../control-plane/src/config.ts";
import { runEntry } from "../helpers/entry.ts";

// Every process parses its configuration through the shared zod pieces and, on a bad variable, stops
// before connecting to anything: one `invalid configuration: VAR: message` line per problem, exit 1, no
// stack trace. Each case spawns the real entry point as `npm start` / `npm run operator` would.
function assertRefused(r: { code: number | null; stderr: string }, lines: string[]) {
  assert.equal(r.code, 1, r.stderr);
  assert.deepEqual(r.stderr.trimEnd().split("\n"), lines);
}

// Demo mode, so the public demo secrets (the defaults) are not what these cases are refused for.
const connection = {
  DATABASE_URL: "postgres://u@127.0.0.1:9/x",
  REDIS_URL: "redis://127.0.0.1:9",
  DEMO_MODE: "1",
};

test("the gateway names each bad variable and exits 1", async () => {
  const r = await runEntry("gateway/src/main.ts", [], {
    ...connection,
    DATABASE_URL: "not a url",
    GATEWAY_PORT: "70000",
  });
  assertRefused(r, [
    "invalid configuration: GATEWAY_PORT: Too big: expected number to be <=65535",
    "invalid configuration: DATABASE_URL: Invalid URL",
  ]);
});

test("the control plane and its worker name each bad variable and exit 1", async () => {
  const env = { ...connection, REDIS_URL: "", LOG_LEVEL: "loud" };
  const lines = [
    "invalid configuration: REDIS_URL: Invalid URL",
    'invalid configuration: LOG_LEVEL: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
  ];
  const [main, worker] = await Promise.all([
    runEntry("control-plane/src/main.ts", [], env),
    runEntry("control-plane/src/worker.ts", [], env),
  ]);
  assertRefused(main, lines);
  assertRefused(worker, lines);
  // A check across variables reads the same way.
  assertRefused(await runEntry("control-plane/src/main.ts", [], { ...connection, NETWORK: "mainnet" }), [
    "invalid configuration: GATEWAY_JWT_SECRET: the public demo value is refused on mainnet",
    "invalid configuration: ETH_OPERATOR_SEED: the public demo value is refused on mainnet",
    "invalid configuration: ETH_KEY_ENCRYPTION_KEY: the public demo value is refused on mainnet",
  ]);
});

test("the operator CLI parses the same definitions (the gateway's reservation TTL) and exits 1", async () => {
  const r = await runEntry("scripts/operator/main.ts", ["orgs", "list"], {
    ...connection,
    IDEMPOTENCY_TTL_SECONDS: "60",
  });
  assertRefused(r, [
    "invalid configuration: IDEMPOTENCY_TTL_SECONDS: Too small: expected number to be >=86400",
  ]);
  assert.equal(r.stdout, "");
});

test("the worker and the operator CLI refuse a reap delay not longer than the gateway's request deadline + 1 s", async () => {
  const line =
    "invalid configuration: RESERVATION_REAP_AFTER_MS: 41000 must be greater than GATEWAY_REQUEST_DEADLINE_MS (40000) + 1000 ms, or the reaper releases requests the gateway is still serving";
  const [worker, operator] = await Promise.all([
    runEntry("control-plane/src/worker.ts", [], { ...connection, RESERVATION_REAP_AFTER_MS: "41000" }),
    runEntry("scripts/operator/main.ts", ["orgs", "list"], {
      ...connection,
      RESERVATION_REAP_AFTER_MS: "41000",
    }),
  ]);
  assertRefused(worker, [line]);
  assertRefused(operator, [line]);
  // The same reap delay goes with a shorter deadline.
  const config = loadConfig({
    ...connection,
    RESERVATION_REAP_AFTER_MS: "41000",
    GATEWAY_REQUEST_DEADLINE_MS: "39999",
  });
  assert.equal(config.settlement.reapAfterMs, 41_000);
});

test("fix: the operator CLI exports keystores only with a key of its own, or in demo mode", async () => {
  const { loadOperatorConfig } = await import("../../scripts/operator/context.ts");
  assert.match(
    loadOperatorConfig({}).keyEncryptionKeyRefused ?? "",
    /the public demo value is refused unless DEMO_MODE=1/,
  );
  assert.equal(loadOperatorConfig({ DEMO_MODE: "1" }).keyEncryptionKeyRefused, undefined);
  assert.equal(
    loadOperatorConfig({ ETH_KEY_ENCRYPTION_KEY: "b2".repeat(32) }).keyEncryptionKeyRefused,
    undefined,
  );
});
