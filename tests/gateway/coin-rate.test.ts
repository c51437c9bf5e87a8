import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { json, send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Before the operator sets a coin rate nothing can be priced: the gateway says so on /readyz and refuses
// paid requests with a 503 naming the cause, without reserving anything or reaching the provider.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;

before(async () => {
  h = await createGatewayHarness();
  provider = await startProvider();
  await h.addProvider("echo", provider.url, "0.01");
});
after(async () => {
  await h.close();
  await provider.close();
});

test("no coin rate: /readyz is 503 with the reason, a paid request 503 without a reservation", async () => {
  const ready = await send(`${h.url}/readyz`);
  assert.equal(ready.status, 503);
  assert.deepEqual(json(ready), {
    status: "unavailable",
    reason: "no coin rate is set (operator: rate set <usd-per-coin>)",
  });
  assert.equal((await send(`${h.url}/healthz`)).status, 200, "alive all the same");

  const acct = await h.createAccount({ coins: "10" });
  const headers = ["x-gateway-api-key", acct.apiKey, "idempotency-key", "no-rate-1"];
  const res = await send(`${h.url}/gateway/echo/echo`, { headers });
  assert.equal(res.status, 503);
  assert.equal(
    res.body.toString("utf8"),
    JSON.stringify({ message: "Service unavailable: no coin rate is set" }),
  );
  assert.match(String(res.headers["request-id"]), /./);
  assert.equal(provider.seen.length, 0, "nothing reached the provider");
  assert.deepEqual(await h.account(acct.partyId as string), { balance: 10n * 10n ** 10n, reserved: 0n });
  assert.deepEqual(await h.reservations(acct.partyId as string), []);

  // Auth still comes first: an unknown key is a 401, not the 503.
  const anon = await send(`${h.url}/gateway/echo/echo`, {
    headers: ["x-gateway-api-key", "gwk_unknown", "idempotency-key", "no-rate-2"],
  });
  assert.equal(anon.status, 401);
});

test("once the operator sets a rate, the gateway is ready and the same request goes through", async () => {
  await h.setRate("0.5");
  // The rate reaches the gateway by pub/sub, asynchronously.
  const ready = await eventually(
    async () => {
      const r = await send(`${h.url}/readyz`);
      return r.status === 200 && r;
    },
    { what: "the gateway to see the rate" },
  );
  assert.equal(ready.status, 200);
  assert.deepEqual(json(ready), { status: "ok" });

  const acct = await h.createAccount({ coins: "10" });
  const res = await send(`${h.url}/gateway/echo/echo`, {
    headers: ["x-gateway-api-key", acct.apiKey, "idempotency-key", "no-rate-1"],
  });
  assert.equal(res.status, 200);
  assert.equal(provider.seen.length, 1);
});
