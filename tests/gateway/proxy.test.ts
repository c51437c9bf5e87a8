import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { after, afterEach, before, test } from "node:test";
import { formatCoins } from "@stake/db/coin";
import { eventually, sleep } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// Pass-through, header hygiene and transport faults, against a real provider socket.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
let acct: Awaited<ReturnType<GatewayHarness["createAccount"]>>;
let partyId: string;
let n = 0;
const idem = () => `k-${++n}`;

before(async () => {
  h = await createGatewayHarness({ UPSTREAM_TIMEOUT_MS: "300" });
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("p", `${provider.url}/base`, "0.01");
  acct = await h.createAccount({ coins: "100" });
  partyId = acct.partyId as string;
});
after(async () => {
  await h.close();
  await provider.close();
});
afterEach(async () => {
  // A finalize may still be racing a client abort: the invariant holds once it lands.
  await eventually(
    async () => {
      const { reserved, sum } = await h.checkInvariant(partyId);
      return reserved === sum;
    },
    { what: "the party's reserved amount to equal the sum of its open reservations" },
  );
});

const COST = 200_000_000n; // 0.01 USD at 0.5 USD/coin = 0.02 coin
const auth = () => ["x-gateway-api-key", acct.apiKey, "idempotency-key", idem()];

test("2xx/3xx/4xx/5xx pass through byte-identical, and only 2xx/3xx keep the funds reserved", async () => {
  for (const code of [200, 201, 302, 304, 400, 404, 500, 503]) {
    const direct = await send(`${provider.url}/status?code=${code}`);
    const before = await h.account(partyId);
    const via = await send(`${h.url}/gateway/p/status?code=${code}`, { headers: auth() });
    assert.equal(via.status, code);
    assert.equal(via.statusMessage, "Custom Reason");
    assert.deepEqual(via.body, direct.body);
    const GATEWAY_ADDED = /^(ratelimit|ratelimit-policy|request-id|gateway-reservation-id|gateway-cost)$/i;
    const strip = (raw: string[]) => {
      const out: string[] = [];
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i] as string;
        if (!/^(connection|keep-alive|date|transfer-encoding)$/i.test(name) && !GATEWAY_ADDED.test(name))
          out.push(name, raw[i + 1] as string);
      }
      return out;
    };
    assert.deepEqual(strip(via.rawHeaders), strip(direct.rawHeaders), `headers for ${code}`);
    // The gateway's own fields follow the provider's, once each: what this answer costs, in coins.
    const added = via.rawHeaders.filter((name, i) => i % 2 === 0 && GATEWAY_ADDED.test(name));
    assert.deepEqual(added, [
      "ratelimit-policy",
      "ratelimit",
      "request-id",
      "gateway-reservation-id",
      "gateway-cost",
    ]);
    assert.equal(
      via.headers["gateway-cost"],
      code < 400 ? formatCoins(COST) : "0",
      `cost header for ${code}`,
    );
    const after = await h.account(partyId);
    assert.equal(after.reserved - before.reserved, code < 400 ? COST : 0n, `billing for ${code}`);
  }
});

test("method, base path, normalised path, query, body and other headers are forwarded; key and hop-by-hop are not", async () => {
  const from = provider.seen.length;
  const body = JSON.stringify({ hello: "world" });
  const res = await send(`${h.url}/gateway/p/echo/a/../b?x=1&y=%20z`, {
    method: "POST",
    body,
    headers: [
      ...auth(),
      "X-Custom-Case",
      "Kept",
      "Connection",
      "keep-alive, X-Hop-Listed",
      "X-Hop-Listed",
      "secret",
      "Keep-Alive",
      "timeout=5",
      "Proxy-Authorization",
      "Basic abc",
      "TE",
      "trailers",
      "X-Forwarded-For",
      "6.6.6.6",
      "Forwarded",
      "for=6.6.6.6",
      "Content-Type",
      "application/json",
      "Content-Length",
      String(Buffer.byteLength(body)),
    ],
  });
  assert.equal(res.status, 200);
  const seen = provider.seen.slice(from);
  assert.equal(seen.length, 1);
  const got = seen[0];
  assert.ok(got);
  assert.equal(got.method, "POST");
  assert.equal(got.url, "/base/echo/b?x=1&y=%20z");
  assert.equal(got.body.toString(), body);
  const names = got.rawHeaders.filter((_, i) => i % 2 === 0);
  assert.ok(names.includes("X-Custom-Case"), "case of forwarded header names is kept");
  for (const banned of ["x-gateway-api-key", "x-hop-listed", "keep-alive", "proxy-authorization", "te"]) {
    assert.ok(!names.some((n) => n.toLowerCase() === banned), `${banned} must not reach the provider`);
  }
  // The gateway's own forwarding headers, in place of the client's.
  const values = (name: string) =>
    got.rawHeaders.filter((_, i) => got.rawHeaders[i - 1]?.toLowerCase() === name);
  assert.deepEqual(values("x-forwarded-for"), ["127.0.0.1"]);
  assert.deepEqual(values("forwarded"), []);
});

test("upstream timeout answers a 502 and releases the funds", async () => {
  const before = await h.account(partyId);
  const res = await send(`${h.url}/gateway/p/hang`, { headers: auth() });
  assert.equal(res.status, 502);
  assert.equal(res.body.toString(), JSON.stringify({ message: "Bad gateway: upstream aborted response" }));
  assert.equal((await h.account(partyId)).reserved, before.reserved);
});

test("upstream reset mid-body cuts the client connection and releases the funds", async () => {
  const before = await h.account(partyId);
  const key = idem();
  await assert.rejects(
    send(`${h.url}/gateway/p/reset-mid`, {
      headers: ["x-gateway-api-key", acct.apiKey, "idempotency-key", key],
    }),
  );
  const record = await eventually(
    async () => (await h.reservations(partyId)).find((r) => r.i === key && r.s !== "registered"),
    { what: "the reservation to leave registered" },
  );
  assert.equal(record.s, "failed", "registered at the 200, released when the body broke off");
  assert.equal((await h.account(partyId)).reserved, before.reserved);
});

test("the reservation is registered when the provider's headers arrive, while its body still streams", async () => {
  const key = idem();
  await new Promise<void>((resolve, reject) => {
    const req = request({
      hostname: "127.0.0.1",
      port: new URL(h.url).port,
      path: "/gateway/p/slow",
      headers: { "x-gateway-api-key": acct.apiKey, "idempotency-key": key },
    });
    req.on("error", () => {});
    req.on("response", (res) => {
      res.once("data", async () => {
        try {
          // Registered once the headers are in, asynchronously: wait for it while the body still streams.
          await eventually(
            async () => (await h.reservations(partyId)).find((r) => r.i === key && r.s === "registered"),
            { what: "the reservation to be registered" },
          );
          resolve();
        } catch (err) {
          reject(err);
        } finally {
          req.destroy();
        }
      });
    });
    req.end();
  });
});

/** A client that hangs up once the provider has its request (`provider-has-it`) or at the first body byte. */
function abortAfter(path: string, when: "provider-has-it" | "first-byte", key: string) {
  const seenBefore = provider.seen.length;
  return new Promise<void>((resolve) => {
    const req = request({
      hostname: "127.0.0.1",
      port: new URL(h.url).port,
      path,
      headers: { "x-gateway-api-key": acct.apiKey, "idempotency-key": key },
    });
    req.on("error", () => resolve());
    req.on("close", () => resolve());
    if (when === "provider-has-it") {
      req.end();
      void eventually(() => provider.seen.length > seenBefore, {
        what: "the provider to receive the request",
      }).then(() => req.destroy());
    } else {
      req.on("response", (res) => res.once("data", () => req.destroy()));
      req.end();
    }
  });
}

// Regression: a client that hung up after its whole request reached the provider was
// not charged, although the provider did the work (an eth_sendRawTransaction executed, say).
test("fix: client abort after the whole request reached the provider aborts the upstream and charges it", async () => {
  const release = provider.holdRequests();
  const before = await h.account(partyId);
  const key = idem();
  const seen = provider.seen.length;
  await abortAfter("/gateway/p/held", "provider-has-it", key);
  await eventually(() => provider.closedEarly.includes("/base/held"), {
    what: "the upstream request to be aborted",
  });
  release();
  assert.equal(provider.seen.length, seen + 1, "the provider had the whole request");
  // Charged: nothing signals "nothing happened", so a quiet period gives a wrong release the time to land.
  await sleep(50);
  assert.equal((await h.account(partyId)).reserved - before.reserved, COST, "charged");
  const [rec] = (await h.reservations(partyId)).filter((r) => r.i === key);
  assert.equal(rec?.s, "registered");
});

test("client abort before its whole body reached the provider releases the reservation", async () => {
  const before = await h.account(partyId);
  const key = idem();
  const seen = provider.seen.length;
  const socket = connect(Number(new URL(h.url).port), "127.0.0.1");
  socket.on("error", () => {});
  socket.write(
    [
      "POST /gateway/p/echo HTTP/1.1",
      "Host: x",
      `x-gateway-api-key: ${acct.apiKey}`,
      `idempotency-key: ${key}`,
      "Content-Length: 1000",
      "",
      "only part of the body",
    ].join("\r\n"),
  );
  await eventually(async () => (await h.reservations(partyId)).some((r) => r.i === key), {
    what: "the reservation of the request whose body is still coming",
  });
  socket.destroy();
  const rec = await eventually(
    async () => (await h.reservations(partyId)).find((r) => r.i === key && r.s === "failed"),
    { what: "the reservation to be released" },
  );
  assert.equal(rec.s, "failed", "released");
  assert.equal((await h.account(partyId)).reserved, before.reserved);
  assert.equal(provider.seen.length, seen, "the provider never had the whole request");
});

test("client abort during the response aborts the upstream; the provider did answer 2xx so it stays registered", async () => {
  const before = await h.account(partyId);
  const key = idem();
  await abortAfter("/gateway/p/slow", "first-byte", key);
  await eventually(() => provider.closedEarly.includes("/base/slow"), {
    what: "the upstream stream to be aborted",
  });
  // Registered at the provider's 2xx; the abort must not release it. Nothing signals "nothing happened", so
  // a quiet period gives a wrong release the time to land.
  await sleep(50);
  const [rec] = (await h.reservations(partyId)).filter((r) => r.i === key);
  assert.equal(rec?.s, "registered");
  assert.equal((await h.account(partyId)).reserved - before.reserved, COST);
});

test("Expect: 100-continue is answered only after auth and reservation", async () => {
  const port = new URL(h.url).port;
  const ask = (key: string) =>
    new Promise<{ continued: boolean; status: number }>((resolve, reject) => {
      let continued = false;
      const req = request({
        hostname: "127.0.0.1",
        port,
        method: "POST",
        path: "/gateway/p/echo",
        headers: {
          "x-gateway-api-key": key,
          "idempotency-key": idem(),
          expect: "100-continue",
          "content-length": "5",
        },
      });
      req.on("continue", () => {
        continued = true;
        req.end("hello");
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve({ continued, status: res.statusCode ?? 0 }));
      });
      req.on("error", reject);
      req.flushHeaders();
    });
  assert.deepEqual(await ask("gwk_wrong"), { continued: false, status: 401 });
  assert.deepEqual(await ask(acct.apiKey), { continued: true, status: 200 });
  const last = provider.seen.at(-1);
  assert.equal(last?.body.toString(), "hello");
});
