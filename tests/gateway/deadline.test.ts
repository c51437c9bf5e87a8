import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send, upgradeRequestHead } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// GATEWAY_REQUEST_DEADLINE_MS bounds everything before the provider's response headers (or 101), the
// client's upload included, so no reservation stays in flight past it: a trickled body, a provider that
// never answers and an upgrade the provider never answers are cut off, and their reservations released.
const DEADLINE_MS = 1500;
// Well past the deadline, well short of what the slow parties below would take.
const CUT_WITHIN_MS = DEADLINE_MS + 2000;
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
const silentUpgrades: Socket[] = [];
// Accepts upgrade requests and never answers them.
const silent = createServer((_req, res) => res.end("no upgrade"));
silent.on("upgrade", (_req, socket: Socket) => {
  silentUpgrades.push(socket);
});

before(async () => {
  h = await createGatewayHarness({ GATEWAY_REQUEST_DEADLINE_MS: String(DEADLINE_MS) });
  provider = await startProvider();
  await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
  await h.setRate("0.5");
  await h.addProvider("echo", provider.url, "0.01");
  await h.addProvider("ws", `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, "0.01");
});
after(async () => {
  for (const s of silentUpgrades) s.destroy();
  await new Promise((r) => silent.close(r));
  await h.close();
  await provider.close();
});

/** A raw client: writes `head`, then collects what comes back until the gateway ends the connection. */
function rawClient(head: string) {
  const socket = connect(Number(new URL(h.url).port), "127.0.0.1");
  socket.write(head);
  let data = "";
  socket.on("data", (d: Buffer) => {
    data += d.toString("latin1");
  });
  socket.on("error", () => {}); // a reset after the answer is one way to be cut off
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now())));
  return { socket, closed, data: () => data };
}

/** Waits for the gateway to end the connection: after the deadline, long before CUT_WITHIN_MS. */
async function cutOff(client: ReturnType<typeof rawClient>, started: number) {
  const closedAt = await Promise.race([
    client.closed,
    new Promise<null>((r) => setTimeout(() => r(null), CUT_WITHIN_MS)),
  ]);
  assert.ok(closedAt, `still open after ${CUT_WITHIN_MS} ms (${JSON.stringify(client.data())})`);
  assert.ok(closedAt - started >= DEADLINE_MS - 50, `cut after ${closedAt - started} ms`);
  return client.data();
}

/** A POST whose 100-byte body trickles in at one byte every 200 ms (20 s in all); what it was answered. */
async function trickled(head: string[]) {
  const started = Date.now();
  const client = rawClient(
    ["POST /gateway/echo/echo HTTP/1.1", "Host: x", ...head, "Content-Length: 100", "", ""].join("\r\n"),
  );
  const trickle = setInterval(() => {
    if (!client.socket.destroyed) client.socket.write("x");
  }, 200);
  try {
    return await cutOff(client, started);
  } finally {
    clearInterval(trickle);
    client.socket.destroy();
  }
}

async function released(partyId: string) {
  const records = await h.reservations(partyId);
  assert.equal(records.length, 1);
  assert.equal(records[0]?.s, "failed", "the reservation is failed");
  assert.equal((await h.account(partyId)).reserved, 0n, "its funds released");
}

test("a body trickled slower than the deadline is cut off with 408 (or a closed connection) and released", async () => {
  const a = await h.createAccount({ coins: "1" });
  const answer = await trickled([`x-gateway-api-key: ${a.apiKey}`, "idempotency-key: trickle-1"]);
  if (answer) {
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(answer.endsWith(JSON.stringify({ message: "Request timeout" })), answer);
  }
  await released(a.partyId as string);
});

test("a refused request whose body keeps trickling is cut off by Node's request timeout, a quarter past the deadline", async () => {
  // Node sweeps for expired requests every quarter of the deadline.
  assert.match(await trickled([]), /^HTTP\/1\.1 401 /, "answered at once, then cut");
});

test("a provider that has the whole body but does not answer within the deadline: 502 upstream aborted, released", async () => {
  const a = await h.createAccount({ coins: "1" });
  const started = Date.now();
  const res = await send(`${h.url}/gateway/echo/hang`, {
    method: "POST",
    headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", "hang-1"],
    body: "whole body",
  });
  assert.equal(res.status, 502);
  assert.equal(res.body.toString(), JSON.stringify({ message: "Bad gateway: upstream aborted response" }));
  const took = Date.now() - started;
  assert.ok(took >= DEADLINE_MS - 50 && took < CUT_WITHIN_MS, `answered after ${took} ms`);
  await released(a.partyId as string);
});

test("an upgrade the provider does not answer within the deadline is cut with 502 and released", async () => {
  const a = await h.createAccount({ coins: "1" });
  const started = Date.now();
  const client = rawClient(
    upgradeRequestHead("/gateway/ws/socket", {
      "x-gateway-api-key": a.apiKey,
      "idempotency-key": "ws-slow-1",
    }),
  );
  try {
    const answer = await cutOff(client, started);
    assert.match(answer, /^HTTP\/1\.1 502 /);
    assert.ok(answer.endsWith(JSON.stringify({ message: "Bad gateway: upstream aborted response" })));
  } finally {
    client.socket.destroy();
  }
  await released(a.partyId as string);
});

test("a response that starts within the deadline streams past it (the reservation is decided by then)", async () => {
  const a = await h.createAccount({ coins: "1" });
  const { request } = await import("node:http");
  const ticks = await new Promise<{ before: number; after: number }>((resolve, reject) => {
    const req = request(`${h.url}/gateway/echo/slow`, {
      headers: { "x-gateway-api-key": a.apiKey, "idempotency-key": "stream-1" },
    });
    req.on("response", (res) => {
      assert.equal(res.statusCode, 200);
      const counts = { before: 0, after: 0 };
      const started = Date.now();
      res.on("data", () => {
        if (Date.now() - started < DEADLINE_MS) counts.before++;
        else counts.after++;
      });
      setTimeout(() => {
        req.destroy();
        resolve(counts);
      }, DEADLINE_MS + 500);
    });
    req.on("error", reject);
    req.end();
  });
  assert.ok(ticks.after > 0, `chunks after the deadline: ${ticks.after} (before: ${ticks.before})`);
  const [record] = await h.reservations(a.partyId as string);
  assert.equal(record?.s, "registered", "a client leaving mid-body after a 2xx stays charged");
});
