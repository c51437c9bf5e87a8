import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRedisKeys } from "@stake/db/redis/keys";
import { checkArgs, UsageError } from "../../scripts/operator/context.ts";
import { priceCommands } from "../../scripts/operator/prices.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { operatorContext } from "../helpers/operator.ts";

// The operator feeds the daily price series statements value rewards at, as it sets the coin rate (the
// commands run in process on the test's database: a CLI process per call costs seconds here).
let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({ CONTROL_PLANE_AREAS: "statements" });
});
after(() => h.close());

async function operator(name: "prices set" | "prices show", ...positionals: string[]) {
  const command = priceCommands[name];
  assert.ok(command);
  const args = { positionals, flags: {} };
  checkArgs(command, args);
  const ctx = operatorContext({ db: h.db, redis: h.redis, keys: createRedisKeys(h.config.redisPrefix) });
  return (await command.run(ctx, args)).data;
}

test("prices set stores exact daily prices, replaces a day, and prices show lists the month", async () => {
  await operator("prices set", "eth", "usd", "2026-10-01=2500.125,2026-10-02=2600");
  await operator("prices set", "ETH", "USD", "2026-10-02=2601.000000000000000001");
  assert.deepEqual(await operator("prices show", "eth", "USD", "2026-10"), [
    { day: "2026-10-01", price: "2500.125" },
    { day: "2026-10-02", price: "2601.000000000000000001" },
  ]);
  await assert.rejects(operator("prices set", "eth", "USD", "2026-10-03=1e3"), UsageError);
  await assert.rejects(operator("prices set", "eth", "USD", "2026-02-30=1"), UsageError);
  await assert.rejects(operator("prices set", "eth", "USD", "2026-10-03=1", "extra"), UsageError);
});
