import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { longestGatewayDeadline } from "@stake/db/redis/gateway-deadlines";
import { runSettlementPass } from "../../control-plane/src/features/gateway-settlement/pass.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Regression: the worker checked RESERVATION_REAP_AFTER_MS against its own
// GATEWAY_REQUEST_DEADLINE_MS, so a gateway configured with a longer deadline passed the check and its
// requests were released (and the funds spendable again) while it was still serving them.
const GATEWAY_DEADLINE = 120_000;
const WORKER_REAP_AFTER = 60_000; // right for the worker's own (default 40 s) deadline, wrong for this gateway
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;

before(async () => {
  h = await createGatewayHarness({ GATEWAY_REQUEST_DEADLINE_MS: String(GATEWAY_DEADLINE) });
  provider = await startProvider();
  await h.setRate("1");
  await h.addProvider("held", provider.url, "0.01");
});
after(async () => {
  await h.close();
  await provider.close();
});

test("fix: the reaper outwaits the deadline a running gateway publishes, not the worker's own", async () => {
  assert.equal(await longestGatewayDeadline(h.redis, h.keys), GATEWAY_DEADLINE, "the gateway published it");
  const a = await h.createAccount({ coins: "1" });
  const partyId = a.partyId as string;
  const release = provider.holdRequests();
  const pending = send(`${h.url}/gateway/held/held`, {
    headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", "held-1"],
  });
  const waitUntil = Date.now() + 5000;
  while ((await h.account(partyId)).reserved === 0n) {
    assert.ok(Date.now() < waitUntil, "the reservation never went in flight");
    await new Promise((r) => setTimeout(r, 20));
  }
  const settle = (aheadMs: number) => {
    const later = Date.now() + aheadMs;
    return h.redis
      .sadd(h.keys.gateway.settleDirty(partyId), partyId)
      .then(() =>
        runSettlementPass(
          { db: h.db, redis: h.redis, keys: h.keys },
          { reapAfterMs: WORKER_REAP_AFTER, ttlSeconds: 172_800, now: () => later },
        ),
      );
  };
  // Past the worker's reap age, within the gateway's deadline: the gateway is still serving it.
  const early = await settle(WORKER_REAP_AFTER + 1_000);
  assert.equal(early.reaped, 0, "released while its gateway was still waiting on the provider");
  assert.ok(early.reapAfterMs > GATEWAY_DEADLINE, `reap age in force ${early.reapAfterMs}`);
  assert.notEqual((await h.account(partyId)).reserved, 0n);
  // Past the gateway's own deadline (its gateway died, say): reaped.
  assert.equal((await settle(GATEWAY_DEADLINE + 2_000)).reaped, 1);
  release();
  await pending;
});

test("a stopped gateway withdraws its deadline; a dead one's expires", async () => {
  const { publishDeadline } = await import("@stake/db/redis/gateway-deadlines");
  await publishDeadline(h.redis, h.keys, { instanceId: "dead", deadlineMs: 999_999 }, Date.now() - 3_600_000);
  assert.equal(await longestGatewayDeadline(h.redis, h.keys), GATEWAY_DEADLINE, "expired: ignored");
  assert.equal(await h.redis.hexists(h.keys.gateway.deadlines, "dead"), 0, "and dropped");
});
