import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { gatewayApiKeys } from "@stake/db/schema/index";
import { eq } from "drizzle-orm";
import { createGatewayKeyService } from "../../control-plane/src/features/gateway-account/keys-service.ts";
import { createGatewayAccountRepo } from "../../control-plane/src/features/gateway-account/repo.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";

// A key or cap change drops only what it names from every gateway's cache (docs/architecture.md §6 step
// 1): another party's cached key stays, so its requests keep being served without a database lookup.
let h: GatewayHarness;
const provider = createServer((_req, res) => res.end("ok"));
before(async () => {
  h = await createGatewayHarness();
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  await h.setRate("1");
  await h.addProvider("p", `http://127.0.0.1:${(provider.address() as AddressInfo).port}`, "0.01");
});
after(async () => {
  await new Promise((r) => provider.close(r));
  await h.close();
});

let n = 0;
async function status(apiKey: string) {
  const res = await fetch(`${h.url}/gateway/p/x`, {
    headers: { "x-gateway-api-key": apiKey, "idempotency-key": `ci-${++n}` },
  });
  await res.arrayBuffer();
  return res.status;
}
async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("regression: one user's key deactivation or cap change leaves another party's cached key in place", async () => {
  const a = await h.createAccount({ coins: "10" });
  const b = await h.createAccount({ coins: "10" });
  assert.equal(await status(b.apiKey), 200);
  // B's key deactivated behind the gateway's back (no message): only a fresh lookup would see it.
  await h.db.update(gatewayApiKeys).set({ active: false }).where(eq(gatewayApiKeys.id, b.keyId));

  // A's key caps change, then A's key is deactivated: each message names A's key only.
  const keysService = createGatewayKeyService({
    db: h.db,
    repo: createGatewayAccountRepo(h.db),
    redis: h.redis,
    keys: h.keys,
  });
  await keysService.setSpendCaps(a.userId, a.keyId, { daily: "0.001", monthly: null });
  await until("A's lowered cap applied", async () => (await status(a.apiKey)) === 402);
  assert.equal(await status(b.apiKey), 200, "B's cached key was not dropped by A's cap change");
  await h.deactivateKey(a.keyId);
  await until("A's key refused", async () => (await status(a.apiKey)) === 403);
  assert.equal(await status(b.apiKey), 200, "B's cached key was not dropped by A's deactivation");

  // What names B drops B.
  await h.deactivateKey(b.keyId);
  await until("B's key refused", async () => (await status(b.apiKey)) === 403);
});
