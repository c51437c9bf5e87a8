import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { json, send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Every gateway row of the spec's error table, byte for byte, and that none of them reaches the provider.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
let rich: Awaited<ReturnType<GatewayHarness["createAccount"]>>;
const parties: string[] = [];

before(async () => {
  h = await createGatewayHarness();
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("echo", provider.url, "0.01");
  await h.addProvider("off", provider.url, "0.01", "disabled");
  await h.addProvider("slow", provider.url, "0.01", "degraded");
  rich = await h.createAccount({ coins: "100" });
  parties.push(rich.partyId as string);
});
after(async () => {
  await h.close();
  await provider.close();
});
afterEach(async () => {
  for (const p of parties) {
    const { reserved, sum } = await h.checkInvariant(p);
    assert.equal(reserved, sum, "reserved equals the cost of in-flight and registered reservations");
  }
});

function call(path: string, headers: string[] = []) {
  return send(`${h.url}${path}`, { headers });
}
function expectError(res: Awaited<ReturnType<typeof send>>, status: number, message: string) {
  assert.equal(res.status, status);
  assert.equal(res.body.toString("utf8"), JSON.stringify({ message }));
  assert.match(String(res.headers["content-type"]), /^application\/json/);
}
const key = () => ["x-gateway-api-key", rich.apiKey];

test("401 Unauthorized for a missing or unknown key", async () => {
  expectError(await call("/gateway/echo/x", ["idempotency-key", "a1"]), 401, "Unauthorized");
  expectError(
    await call("/gateway/echo/x", ["x-gateway-api-key", "gwk_nope", "idempotency-key", "a2"]),
    401,
    "Unauthorized",
  );
});

test("403 API Key is no longer active, effective right after deactivation", async () => {
  const acct = await h.createAccount({ coins: "1" });
  parties.push(acct.partyId as string);
  const ok = await call("/gateway/echo/x", ["x-gateway-api-key", acct.apiKey, "idempotency-key", "d1"]);
  assert.equal(ok.status, 200);
  await h.deactivateKey(acct.keyId);
  // Pub/sub delivery is asynchronous; the spec's bound is one second.
  const deadline = Date.now() + 1000;
  let res = await call("/gateway/echo/x", ["x-gateway-api-key", acct.apiKey, "idempotency-key", "d2"]);
  while (res.status === 200 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    res = await call("/gateway/echo/x", [
      "x-gateway-api-key",
      acct.apiKey,
      "idempotency-key",
      `d${Date.now()}`,
    ]);
  }
  expectError(res, 403, "API Key is no longer active");
});

test("403 User does not have a party", async () => {
  const acct = await h.createAccount({ party: false });
  expectError(
    await call("/gateway/echo/x", ["x-gateway-api-key", acct.apiKey, "idempotency-key", "n1"]),
    403,
    "User does not have a party",
  );
});

test("400 Provider key is required for a path without a valid provider key", async () => {
  for (const path of ["/gateway/", "/gateway", "/nope/echo", "/gateway/.echo/x"]) {
    expectError(await call(path, [...key(), "idempotency-key", "p1"]), 400, "Provider key is required");
  }
});

test("regression: 400 Invalid upstream path (not Provider key is required) for a .. escape or an ambiguous segment", async () => {
  for (const path of ["/gateway/echo/../../etc/passwd", "/gateway/echo/%2e%2e/x", "/gateway/echo/a;b"]) {
    expectError(await call(path, [...key(), "idempotency-key", "p1"]), 400, "Invalid upstream path");
  }
});

test("404 Provider not found; 403 Provider is not active (disabled and degraded)", async () => {
  expectError(
    await call("/gateway/unknown/x", [...key(), "idempotency-key", "u1"]),
    404,
    "Provider not found",
  );
  expectError(
    await call("/gateway/off/x", [...key(), "idempotency-key", "u2"]),
    403,
    "Provider is not active",
  );
  expectError(
    await call("/gateway/slow/x", [...key(), "idempotency-key", "u3"]),
    403,
    "Provider is not active",
  );
});

test("disabling a provider takes effect within a second", async () => {
  await h.addProvider("flip", provider.url, "0.01");
  assert.equal((await call("/gateway/flip/x", [...key(), "idempotency-key", "f1"])).status, 200);
  await h.setProviderStatus("flip", "disabled");
  const deadline = Date.now() + 1000;
  let res = await call("/gateway/flip/x", [...key(), "idempotency-key", "f2"]);
  while (res.status === 200 && Date.now() < deadline) {
    res = await call("/gateway/flip/x", [...key(), "idempotency-key", `f${Date.now()}`]);
  }
  expectError(res, 403, "Provider is not active");
});

test("400 for a missing idempotency key and for one given twice", async () => {
  expectError(await call("/gateway/echo/x", key()), 400, "Idempotency key is required");
  expectError(
    await call("/gateway/echo/x", [...key(), "idempotency-key", ""]),
    400,
    "Idempotency key is required",
  );
  expectError(
    await call("/gateway/echo/x", [...key(), "idempotency-key", "a", "Idempotency-Key", "b"]),
    400,
    "Idempotency key must be a string, and not an array",
  );
});

test("400 for an idempotency key longer than 255 characters or not visible ASCII; nothing stored or forwarded", async () => {
  const message = "Idempotency key must be at most 255 visible ASCII characters";
  const seen = provider.seen.length;
  const records = (await h.reservations(rich.partyId as string)).length;
  for (const bad of ["k".repeat(256), "k".repeat(15_000), "with space", "tab\tkey", "caf\u00e9"]) {
    expectError(await call("/gateway/echo/x", [...key(), "idempotency-key", bad]), 400, message);
  }
  assert.equal(provider.seen.length, seen, "nothing forwarded");
  assert.equal((await h.reservations(rich.partyId as string)).length, records, "nothing stored");
  const longest = `${"~".repeat(254)}!`;
  assert.equal((await call("/gateway/echo/x", [...key(), "idempotency-key", longest])).status, 200);
});

test("403 Party does not have enough balance (nothing reserved, nothing forwarded)", async () => {
  const poor = await h.createAccount({ coins: "0.01" }); // one request costs 0.02
  parties.push(poor.partyId as string);
  const before = provider.seen.length;
  expectError(
    await call("/gateway/echo/x", ["x-gateway-api-key", poor.apiKey, "idempotency-key", "b1"]),
    403,
    "Party does not have enough balance",
  );
  assert.equal(provider.seen.length, before);
  assert.equal((await h.account(poor.partyId as string)).reserved, 0n);
});

test("409 Idempotency key already exists, with the existing reservation", async () => {
  const first = await call("/gateway/echo/x", [...key(), "idempotency-key", "dup-1"]);
  assert.equal(first.status, 200);
  const again = await call("/gateway/echo/y", [...key(), "idempotency-key", "dup-1"]);
  assert.equal(again.status, 409);
  const body = json(again) as { message: string; reservation: Record<string, unknown> };
  assert.equal(body.message, "Idempotency key already exists");
  assert.deepEqual(Object.keys(body.reservation).sort(), [
    "costInUSD",
    "createdAt",
    "idempotencyKey",
    "partyId",
    "providerKey",
    "status",
    "updatedAt",
  ]);
  assert.equal(body.reservation.idempotencyKey, "dup-1");
  assert.equal(body.reservation.partyId, rich.partyId);
  assert.equal(body.reservation.providerKey, "echo");
  assert.equal(body.reservation.costInUSD, 0.01);
  assert.equal(body.reservation.status, "registered");
  // Same key on another provider is another scope.
  await h.addProvider("echo2", provider.url, "0.01");
  assert.equal((await call("/gateway/echo2/x", [...key(), "idempotency-key", "dup-1"])).status, 200);
});

test("502 Bad gateway: provider unavailable when the connection is refused; funds released", async () => {
  await h.addProvider("dead", "http://127.0.0.1:1", "0.01");
  const before = await h.account(rich.partyId as string);
  expectError(
    await call("/gateway/dead/x", [...key(), "idempotency-key", "c1"]),
    502,
    "Bad gateway: provider unavailable",
  );
  assert.equal((await h.account(rich.partyId as string)).reserved, before.reserved);
});

test("502 Bad gateway: upstream aborted response when the provider hangs up", async () => {
  expectError(
    await call("/gateway/echo/reset-before", [...key(), "idempotency-key", "r1"]),
    502,
    "Bad gateway: upstream aborted response",
  );
});

test("502 Bad gateway: upstream response stream error for a malformed response", async () => {
  const { createServer } = await import("node:net");
  const bad = createServer((s) => s.once("data", () => s.end("HTTP/1.1 abc nonsense\r\n\r\n")));
  await new Promise<void>((r) => bad.listen(0, "127.0.0.1", r));
  const port = (bad.address() as { port: number }).port;
  await h.addProvider("garbage", `http://127.0.0.1:${port}`, "0.01");
  expectError(
    await call("/gateway/garbage/x", [...key(), "idempotency-key", "g1"]),
    502,
    "Bad gateway: upstream response stream error",
  );
  bad.close();
});
