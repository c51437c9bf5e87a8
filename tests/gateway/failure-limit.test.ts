import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, test } from "node:test";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Regression: failed requests were free but not costless: with 0.06 coins a party made
// 672 failed requests in 3.4 s, each leaving a record in Redis for 48 h and a Postgres row. Now a party's
// failures are limited per window (GATEWAY_PARTY_FAILURE_LIMIT), and the record of a request that failed
// before any provider byte keeps its idempotency key for minutes (GATEWAY_UNANSWERED_RECORD_TTL_SECONDS).
const LIMIT = 5;
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;

/** A port nothing listens on: taken, then released. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

before(async () => {
  h = await createGatewayHarness({
    GATEWAY_PARTY_FAILURE_LIMIT: String(LIMIT),
    GATEWAY_PARTY_FAILURE_WINDOW_MS: "60000",
  });
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("p", provider.url, "0.01");
  await h.addProvider("gone", `http://127.0.0.1:${await closedPort()}`, "0.01");
});
after(async () => {
  await h.close();
  await provider.close();
});

const call = (apiKey: string, path: string, key: string) =>
  send(`${h.url}/gateway/${path}`, { headers: ["x-gateway-api-key", apiKey, "idempotency-key", key] });

test("fix: past GATEWAY_PARTY_FAILURE_LIMIT failures in a window, the party gets 429 with Retry-After", async () => {
  const a = await h.createAccount({ coins: "0.06" });
  for (let i = 0; i < LIMIT; i++) {
    const res = await call(a.apiKey, "p/status?code=500", `fail-${i}`);
    assert.equal(res.status, 500, res.body.toString());
  }
  const seen = provider.seen.length;
  for (const path of ["p/status?code=500", "p/echo"]) {
    const res = await call(a.apiKey, path, `after-${path}`);
    assert.equal(res.status, 429, res.body.toString());
    assert.equal(res.body.toString(), JSON.stringify({ message: "Too many requests" }));
    const retryAfter = Number(res.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${res.headers["retry-after"]}`);
  }
  assert.equal(provider.seen.length, seen, "nothing forwarded");
  // Another party is not held back, and paid requests do not count.
  const b = await h.createAccount({ coins: "1" });
  for (let i = 0; i < LIMIT + 2; i++) assert.equal((await call(b.apiKey, "p/echo", `ok-${i}`)).status, 200);
});

test("fix: a request that failed before any provider byte keeps its record minutes, one the provider refused 48 h", async (t) => {
  const a = await h.createAccount({ coins: "1" });
  const partyId = a.partyId as string;
  const g = h.keys.gateway;
  const streamBefore = Number((await h.redis.call("MEMORY", "USAGE", g.reservationLog(partyId))) ?? 0);
  assert.equal((await call(a.apiKey, "gone/x", "unanswered")).status, 502);
  assert.equal((await call(a.apiKey, "p/status?code=503", "answered")).status, 503);
  const byKey = new Map<string, { ttl: number; bytes: number }>();
  for (const rec of await h.reservations(partyId)) {
    const key = g.reservation(
      partyId,
      (await import("@stake/db/redis/keys")).scopeHash(rec.k ?? "", rec.i ?? ""),
    );
    const bytes = Number(await h.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
    byKey.set(rec.i ?? "", { ttl: await h.redis.ttl(key), bytes });
  }
  const unanswered = byKey.get("unanswered");
  const answered = byKey.get("answered");
  assert.ok(unanswered && unanswered.ttl > 0 && unanswered.ttl <= 600, `unanswered TTL ${unanswered?.ttl}`);
  assert.ok(answered && answered.ttl > 86_400, `answered TTL ${answered?.ttl}`);
  const stream = Number(await h.redis.call("MEMORY", "USAGE", g.reservationLog(partyId)));
  // The figures the issue asks for: what one failed request holds in Redis, and for how long.
  t.diagnostic(
    `Redis bytes per failed request: record ${unanswered.bytes} B (kept ${unanswered.ttl} s when unanswered, ${answered.ttl} s when refused by the provider); event stream +${Math.round((stream - streamBefore) / 2)} B each until the worker drains it`,
  );
});
