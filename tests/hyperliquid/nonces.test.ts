import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { createHyperliquidRepo } from "../../control-plane/src/features/hyperliquid-delegation/repo.ts";
import { createTestRedis, testRedisTarget } from "../helpers/redis.ts";

// Two API processes (two Redis connections, one key layout) whose clocks disagree by 5 seconds.
const shared = createTestRedis();
const second = createRedis(testRedisTarget(), { name: "tests-second-process" });
after(async () => {
  await second.quit();
  await shared.cleanup();
});

test("nonces strictly increase per delegator across processes, even with clock skew", async () => {
  const keys = createRedisKeys(shared.prefix);
  const a = createHyperliquidRepo({ redis: shared.redis, keys });
  const b = createHyperliquidRepo({ redis: second, keys });
  const t = 1_763_800_000_000;
  const address = "0x0f8ea7a212516b6d13c6ad62ab7068ebeb12beca";
  const got: number[] = [];
  for (let i = 0; i < 10; i++) {
    got.push(await a.nextNonce(address, t + i));
    got.push(await b.nextNonce(address.toUpperCase().replace("0X", "0x"), t - 5_000 + i));
  }
  for (let i = 1; i < got.length; i++) assert.ok((got[i] ?? 0) > (got[i - 1] ?? 0), `${got}`);
  assert.equal(got[0], t, "a fresh delegator gets the caller's time");
  // Another delegator is independent.
  assert.equal(await b.nextNonce("0x70766b90340f3c75ebcd0a3b5aae12881dce0a94", t - 5_000), t - 5_000);
  // Concurrent callers never share a nonce.
  const burst = await Promise.all(
    Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).nextNonce(address, t)),
  );
  assert.equal(new Set(burst).size, 50);
});
