import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send, upgradeRequestHead } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// GATEWAY_PARTY_RATE_LIMIT: a party's requests past the limit of its window get 429 with Retry-After in the
// gateway's error format, paid and free alike, and reach neither the ledger nor the provider.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;

before(async () => {
  h = await createGatewayHarness({ GATEWAY_PARTY_RATE_LIMIT: "3", GATEWAY_PARTY_RATE_WINDOW_MS: "5000" });
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("paid", provider.url, "0.01");
  await h.addProvider("free", provider.url, "0");
});
after(async () => {
  await h.close();
  await provider.close();
});

test("the fourth request of a window is 429 Too many requests with Retry-After; free requests count too", async () => {
  const a = await h.createAccount({ coins: "1" });
  const call = (providerKey: string, key: string) =>
    send(`${h.url}/gateway/${providerKey}/x`, {
      headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", key],
    });
  assert.equal((await call("paid", "1")).status, 200);
  assert.equal((await call("free", "2")).status, 200);
  assert.equal((await call("free", "3")).status, 200);
  const seen = provider.seen.length;
  const before = await h.account(a.partyId as string);
  for (const [providerKey, key] of [
    ["paid", "4"],
    ["free", "5"],
  ] as const) {
    const res = await call(providerKey, key);
    assert.equal(res.status, 429);
    assert.equal(res.body.toString("utf8"), JSON.stringify({ message: "Too many requests" }));
    const retryAfter = Number(res.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 5, `Retry-After ${res.headers["retry-after"]}`);
  }
  assert.equal(provider.seen.length, seen, "nothing forwarded");
  assert.deepEqual(await h.account(a.partyId as string), before, "nothing reserved");
  // Another party is not held back by this one.
  const b = await h.createAccount({ coins: "1" });
  const res = await send(`${h.url}/gateway/paid/x`, {
    headers: ["x-gateway-api-key", b.apiKey, "idempotency-key", "1"],
  });
  assert.equal(res.status, 200);
});

test("an upgrade past the limit is refused on the raw socket: 429 with Retry-After, nothing forwarded", async () => {
  const a = await h.createAccount({ coins: "1" });
  for (const key of ["1", "2", "3"]) {
    const res = await send(`${h.url}/gateway/free/x`, {
      headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", key],
    });
    assert.equal(res.status, 200);
  }
  const seen = provider.seen.length;
  const socket = connect(Number(new URL(h.url).port), "127.0.0.1");
  socket.write(
    upgradeRequestHead("/gateway/free/socket", { "x-gateway-api-key": a.apiKey, "idempotency-key": "4" }),
  );
  let text = "";
  socket.on("data", (d: Buffer) => {
    text += d.toString("latin1");
  });
  await once(socket, "close");
  assert.match(text, /^HTTP\/1\.1 429 /);
  assert.match(text, /\r\nretry-after: [1-5]\r\n/i);
  assert.ok(text.endsWith(JSON.stringify({ message: "Too many requests" })), text);
  assert.equal(provider.seen.length, seen, "nothing forwarded");
});
