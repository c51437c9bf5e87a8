import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { newId } from "@stake/db/ids";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { gatewayApiKeys, gatewayUsers, parties } from "@stake/db/schema/index";
import type { OperatorContext, ParsedArgs } from "../../scripts/operator/context.ts";
import { gatewayCommands } from "../../scripts/operator/gateway.ts";
import { operatorContext } from "../helpers/operator.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";
import { createTestRedis } from "../helpers/redis.ts";

let database: TestDatabase;
let redis: ReturnType<typeof createTestRedis>;
let ctx: OperatorContext;

before(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  ctx = operatorContext({ db: database.db, redis: redis.redis, keys: createRedisKeys(redis.prefix) });
});
after(async () => {
  await redis.cleanup();
  await database.drop();
});

function run(name: string, positionals: string[], flags: ParsedArgs["flags"] = {}) {
  const command = gatewayCommands[name];
  assert.ok(command, name);
  return command.run(ctx, { positionals, flags });
}

test("providers add, update, list; rate set", async () => {
  await run("providers add", ["rpc"], { url: "http://127.0.0.1:9/v1/", cost: "0.001" });
  await assert.rejects(
    run("providers add", ["rpc"], { url: "http://127.0.0.1:9", cost: "1" }),
    /already exists/,
  );
  await assert.rejects(run("providers add", ["x"], { url: "http://127.0.0.1:9", cost: "1e-3" }), /decimal/);
  await run("providers update", ["rpc"], { status: "degraded" });
  const list = (await run("providers list", [])).data as Array<Record<string, string>>;
  assert.deepEqual(
    list.map((p) => [p.key, p.originUrl, p.costInUSD, p.status]),
    [["rpc", "http://127.0.0.1:9/v1", "0.0010000000", "degraded"]],
  );
  // WebSocket slices (docs/architecture.md §11): a minute at the request price by default.
  const sliced = (await run("providers update", ["rpc"], { "slice-messages": "100", "slice-cost": "0.02" }))
    .data as { upgradeSlice: unknown };
  assert.deepEqual(sliced.upgradeSlice, { costInUSD: "0.0200000000", seconds: 60, messages: 100 });
  const reset = (
    await run("providers update", ["rpc"], { "slice-messages": "none", "slice-cost": "request" })
  ).data as { upgradeSlice: unknown };
  assert.deepEqual(reset.upgradeSlice, { costInUSD: "0.0010000000", seconds: 60, messages: null });
  await assert.rejects(run("providers update", ["rpc"], { "slice-seconds": "0" }), /from 1 to 86400/);
  const rate = (await run("rate set", ["0.15"])).data as Record<string, string>;
  assert.equal(rate.usdPerCoin, "0.150000000000");
  await assert.rejects(run("rate set", ["0"]), /positive/);
});

test("fund credits once per ref, in Postgres and in Redis; deactivation publishes an invalidation", async () => {
  const userId = newId("gatewayUser");
  await database.db.insert(gatewayUsers).values({ id: userId, email: "op@example.test", passwordHash: "x" });
  const partyId = newId("party");
  await database.db.insert(parties).values({ id: partyId, userId });

  const first = (await run("fund", [partyId, "12.5"], { ref: "wire-1" })).data as Record<string, unknown>;
  const second = (await run("fund", [partyId, "12.5"], { ref: "wire-1" })).data as Record<string, unknown>;
  assert.equal(first.applied, true);
  assert.equal(second.applied, false);
  assert.equal(second.balance, "12.5");
  assert.equal(await redis.redis.hget(ctx.keys.gateway.account(partyId), "balance"), "125000000000");
  const rows = await database.sql`select amount, kind from ledger_entries where external_ref = 'wire-1'`;
  assert.deepEqual(
    rows.map((r) => [r.amount, r.kind]),
    [["125000000000", "credit"]],
  );
  await assert.rejects(run("fund", [partyId, "1"], { ref: "wire-1" }), /already used/);
  await assert.rejects(run("fund", [partyId, "1"]), /--ref/);

  const keyId = newId("gatewayKey");
  await database.db
    .insert(gatewayApiKeys)
    .values({ id: keyId, userId, hash: "h".repeat(64), start: "gwk_abc" });
  const sub = createRedis(redis.target, { name: "tests-sub" });
  const message = new Promise<string>((resolve) => sub.on("message", (_c: string, m: string) => resolve(m)));
  await sub.subscribe(ctx.keys.gateway.invalidations);
  const out = (await run("gateway-keys deactivate", [keyId])).data as Record<string, unknown>;
  assert.equal(out.active, false);
  assert.equal(await message, `key:${keyId}`, "the message names the key only");
  const again = (await run("gateway-keys deactivate", [keyId])).data;
  assert.deepEqual(again, out, "a second deactivation keeps the first deactivatedAt");
  await sub.quit();
});
