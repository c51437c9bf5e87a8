import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createRedisKeys } from "@stake/db/redis/keys";
import { createHyperliquidClient } from "../../control-plane/src/features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "../../control-plane/src/features/hyperliquid-delegation/repo.ts";
import { createHyperliquidService } from "../../control-plane/src/features/hyperliquid-delegation/service.ts";
import { createUpstream } from "../../control-plane/src/http/upstream.ts";
import { type HyperliquidDevnet, startHyperliquidDevnet } from "../../devnet/hyperliquid/server.ts";
import { createTestRedis } from "../helpers/redis.ts";
import { decodeUnsigned, signUnsigned } from "./setup.ts";

// The service reads its clock from `now`; here it follows the node's controllable clock, so the status
// flips from Locked to Active exactly when Hyperliquid's 1-day lock ends.
let dn: HyperliquidDevnet;
const redis = createTestRedis();
before(async () => {
  dn = await startHyperliquidDevnet({ chain: "Testnet" });
});
after(async () => {
  await dn.close();
  await redis.cleanup();
});

test("delegation status is Locked until lockedUntil, then Active", async () => {
  const service = createHyperliquidService({
    client: createHyperliquidClient({
      baseUrl: dn.url,
      upstream: createUpstream({ name: "Hyperliquid API", timeoutMs: 1000, maxBytes: 1 << 20 }),
    }),
    repo: createHyperliquidRepo({ redis: redis.redis, keys: createRedisKeys(redis.prefix) }),
    network: "testnet",
    validator: dn.validators[0],
    now: dn.now,
  });
  const auth = { organisationId: "org", keyId: "key", scope: {} };
  const w = dn.wallets[0];
  assert.ok(w);
  const prepared = await service.prepare(
    "delegate",
    { amount: { wei: 3n * 10n ** 8n, text: "3" }, delegatorAddress: w.address as `0x${string}` },
    auth,
  );
  const sent = await service.broadcast(
    await signUnsigned(decodeUnsigned(prepared.unsignedTransactionBase64), w.wallet),
    auth,
  );
  assert.equal(sent.status, "success");

  const locked = await service.balance(w.address, auth);
  assert.equal(locked.delegations[0]?.status, "Locked");
  const until = locked.delegations[0]?.lockedUntil ?? 0;
  dn.advanceTime(until - dn.now());
  assert.equal((await service.balance(w.address, auth)).delegations[0]?.status, "Active");
});
