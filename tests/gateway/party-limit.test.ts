import assert from "node:assert/strict";
import { once } from "node:events";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { scopeHash } from "@stake/db/redis/keys";
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

test("RateLimit fields (structured-field form) on every reply past routing, from reserve.lua's counter; the request, reservation and cost headers", async () => {
  const a = await h.createAccount({ coins: "0.03" });
  const call = (path: string, key: string) =>
    send(`${h.url}/gateway/paid${path}`, {
      headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", key],
    });
  const state = (res: Awaited<ReturnType<typeof call>>) => {
    assert.equal(res.headers["ratelimit-policy"], '"party";q=3;w=5', "the policy: 3 per 5 s window");
    const m = /^"party";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
    assert.ok(m, `RateLimit: ${res.headers.ratelimit}`);
    const t = Number(m[2]);
    assert.ok(t >= 1 && t <= 5, `t=${t}`);
    return { r: Number(m[1]), t };
  };
  // 0.01 USD at 0.5 USD per coin: 0.02 coins, nothing on the provider's 500 (released), charged on the 2xx.
  const failed = await call("/status?code=500", "1");
  assert.equal(failed.status, 500);
  assert.equal(state(failed).r, 2);
  assert.equal(failed.headers["gateway-cost"], "0", "a provider failure is released");
  const paid = await call("/echo", "2");
  assert.equal(paid.status, 200, paid.body.toString());
  assert.equal(state(paid).r, 1);
  assert.match(String(paid.headers["request-id"]), /^req_/);
  assert.match(String(paid.headers["gateway-reservation-id"]), /^rsv_/);
  assert.equal(paid.headers["gateway-cost"], "0.02");
  const record = h.keys.gateway.reservation(a.partyId as string, scopeHash("paid", "2"));
  assert.equal(await h.redis.hget(record, "id"), paid.headers["gateway-reservation-id"]);
  assert.notEqual(failed.headers["gateway-reservation-id"], paid.headers["gateway-reservation-id"]);
  // A refusal at the reservation stage carries them too: 0.03 funded, 0.02 reserved, so 403.
  const poor = await call("/echo", "3");
  assert.equal(poor.status, 403, poor.body.toString());
  assert.equal(state(poor).r, 0);
  const limited = await call("/echo", "4");
  assert.equal(limited.status, 429);
  const { r, t } = state(limited);
  assert.equal(r, 0);
  assert.ok(Number(limited.headers["retry-after"]) >= t, "Retry-After not before the reset");
});
