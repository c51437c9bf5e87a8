import assert from "node:assert/strict";
import { request } from "node:http";
import { after, afterEach, before, test } from "node:test";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Concurrency invariants of the reservation scripts, and streaming without buffering.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
const checked: string[] = [];

before(async () => {
  h = await createGatewayHarness();
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("p", provider.url, "0.01"); // 0.02 coin per request
});
after(async () => {
  await h.close();
  await provider.close();
});
afterEach(async () => {
  for (const partyId of checked) {
    const { reserved, sum, balance } = await h.checkInvariant(partyId);
    assert.equal(reserved, sum, "reserved = Σ cost of in-flight and registered reservations");
    assert.ok(balance - reserved >= 0n, "spendable never below zero");
  }
});

test("500 concurrent requests against a balance covering 200: exactly 200 reach the provider", async () => {
  const acct = await h.createAccount({ coins: "4" });
  checked.push(acct.partyId as string);
  const from = provider.seen.length;
  const results = await Promise.all(
    Array.from({ length: 500 }, (_, i) =>
      send(`${h.url}/gateway/p/echo/conc`, {
        headers: ["x-gateway-api-key", acct.apiKey, "idempotency-key", `c-${i}`],
      }),
    ),
  );
  const ok = results.filter((r) => r.status === 200).length;
  const refused = results.filter(
    (r) =>
      r.status === 403 &&
      r.body.toString() === JSON.stringify({ message: "Party does not have enough balance" }),
  ).length;
  assert.equal(ok, 200);
  assert.equal(refused, 300);
  assert.equal(provider.seen.slice(from).filter((s) => s.url === "/echo/conc").length, 200);
  const { balance, reserved } = await h.account(acct.partyId as string);
  assert.equal(reserved, balance);
});

test("100 concurrent duplicates of one idempotency key: exactly one reaches the provider", async () => {
  const acct = await h.createAccount({ coins: "100" });
  checked.push(acct.partyId as string);
  const from = provider.seen.length;
  const results = await Promise.all(
    Array.from({ length: 100 }, () =>
      send(`${h.url}/gateway/p/echo/dup`, {
        headers: ["x-gateway-api-key", acct.apiKey, "idempotency-key", "same"],
      }),
    ),
  );
  assert.equal(results.filter((r) => r.status === 200).length, 1);
  assert.equal(results.filter((r) => r.status === 409).length, 99);
  assert.equal(provider.seen.slice(from).filter((s) => s.url === "/echo/dup").length, 1);
  assert.equal((await h.account(acct.partyId as string)).reserved, 200_000_000n);
});

test("a 100 MB response streams through with flat memory", async (t) => {
  const acct = await h.createAccount({ coins: "1" });
  checked.push(acct.partyId as string);
  const total = Number(process.env.BIG_MB ?? "100") * 1024 * 1024;
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const received = await new Promise<number>((resolve, reject) => {
    const req = request({
      hostname: "127.0.0.1",
      port: new URL(h.url).port,
      path: `/gateway/p/big?bytes=${total}`,
      headers: { "x-gateway-api-key": acct.apiKey, "idempotency-key": "big" },
    });
    req.on("response", (res) => {
      let n = 0;
      res.on("data", (c: Buffer) => {
        n += c.length;
      });
      res.on("end", () => resolve(n));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  clearInterval(sampler);
  assert.equal(received, total);
  // Provider, gateway and client share this process; buffering the body anywhere would add ≥ 100 MB.
  // Measured: ~40 MB one-off growth (socket and allocator arenas), flat from then on (400 MB streams peak
  // the same), so the bound is loose for a shared CI box but still fails on any whole-body buffer.
  const growth = (peak - baseline) / 1024 / 1024;
  t.diagnostic(`RSS growth while streaming 100 MB: ${growth.toFixed(1)} MB`);
  assert.ok(growth < 80, `RSS grew by ${growth.toFixed(1)} MB while streaming 100 MB`);
});
