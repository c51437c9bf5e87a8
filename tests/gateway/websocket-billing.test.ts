import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { type AddressInfo, connect as connectTcp } from "node:net";
import { after, before, test } from "node:test";
import { gatewayApiKeys, parties, providers } from "@stake/db/schema/index";
import { eq } from "drizzle-orm";
import { WebSocket, WebSocketServer } from "ws";
import { runSettlementPass } from "../../control-plane/src/features/gateway-settlement/pass.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";

// Regression: a WebSocket was charged once and then piped forever, so one paid upgrade
// bought unlimited JSON-RPC calls. Now a connection is billed in slices (docs/architecture.md §11), each
// reserved before it is used; when the party cannot pay the next one the gateway closes with 4402 and
// what was used stays charged. A real WebSocket client, through the real gateway, to a real WS provider.
let h: GatewayHarness;
const provider = createServer();
const wss = new WebSocketServer({ server: provider });
let received = 0;
wss.on("connection", (socket) => {
  socket.on("message", (data) => {
    received++;
    socket.send(`echo:${data.toString()}`);
  });
});
// A provider that accepts an Upgrade token list (RFC 9110 §7.8) and picks WebSocket from it.
const lenient = createServer();
const lenientWss = new WebSocketServer({ noServer: true });
lenient.on("upgrade", (req, socket, head) => {
  const tokens = String(req.headers.upgrade).split(",");
  if (!tokens.some((t) => t.trim().toLowerCase() === "websocket")) return socket.destroy();
  req.headers.upgrade = "websocket";
  lenientWss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
});
const openClients: WebSocket[] = [];
const SLICE = 5_000_000_000n; // 0.5 USD at 1 USD per coin

before(async () => {
  h = await createGatewayHarness();
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
  await h.setRate("1");
  await h.addProvider("ws-messages", url, "0.5");
  await h.addProvider("ws-time", url, "0.5");
  await h.db.update(providers).set({ upgradeSliceMessages: 3 }).where(eq(providers.key, "ws-messages"));
  await h.db.update(providers).set({ upgradeSliceSeconds: 1 }).where(eq(providers.key, "ws-time"));
  await new Promise<void>((r) => lenient.listen(0, "127.0.0.1", r));
  await h.addProvider("ws-lenient", `http://127.0.0.1:${(lenient.address() as AddressInfo).port}`, "0.5");
  await h.db.update(providers).set({ upgradeSliceMessages: 3 }).where(eq(providers.key, "ws-lenient"));
  await h.invalidate();
});
after(async () => {
  for (const c of openClients) c.terminate();
  for (const c of wss.clients) c.terminate();
  await new Promise((r) => wss.close(r));
  await new Promise((r) => provider.close(r));
  await new Promise((r) => lenient.close(r));
  await h.close();
});

function connect(providerKey: string, apiKey: string, key: string) {
  const ws = new WebSocket(`${h.url.replace("http", "ws")}/gateway/${providerKey}/rpc`, {
    headers: { "x-gateway-api-key": apiKey, "idempotency-key": key },
  });
  openClients.push(ws);
  const replies: string[] = [];
  ws.on("message", (d) => replies.push(d.toString()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { ws, replies, closed, opened };
}

/** `promise`, or a failure naming `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("fix: per-N-messages slices: the message past the paid slices is not forwarded and the socket closes with 4402", async () => {
  const a = await h.createAccount({ coins: "1.2" }); // two slices of 0.5, not three
  const partyId = a.partyId as string;
  const c = connect("ws-messages", a.apiKey, "ws-m-1");
  await c.opened;
  const before = received;
  for (let i = 1; i <= 6; i++) c.ws.send(`{"id":${i}}`);
  await waitFor("six answers", () => c.replies.length === 6);
  c.ws.send(`{"id":7}`);
  const { code, reason } = await within(c.closed, "the gateway to close the unpaid connection");
  assert.equal(code, 4402, `close code (reason ${reason})`);
  assert.equal(reason, "balance exhausted");
  assert.equal(received - before, 6, "the unpaid 7th message never reached the provider");
  const records = await h.reservations(partyId);
  assert.deepEqual(
    records.map((r) => `${r.i}: ${r.s}`).sort(),
    ["ws-m-1 slice 2: registered", "ws-m-1: registered"],
    "two slices started, both charged",
  );
  assert.equal((await h.account(partyId)).reserved, 2n * SLICE);
  // Settled like any request: the used slices are debited.
  await h.redis.sadd(h.keys.gateway.settleDirty(partyId), partyId);
  await runSettlementPass(
    { db: h.db, redis: h.redis, keys: h.keys },
    { reapAfterMs: 60_000, ttlSeconds: 172_800 },
  );
  assert.deepEqual(await h.account(partyId), { balance: 12_000_000_000n - 2n * SLICE, reserved: 0n });
});

test("fix: per-started-minute slices (here 1 s): the next slice is reserved before it starts; unpaid, the socket closes with 4402", async () => {
  const a = await h.createAccount({ coins: "1.2" });
  const partyId = a.partyId as string;
  const opened = Date.now();
  const c = connect("ws-time", a.apiKey, "ws-t-1");
  await c.opened;
  // Within the first slice, traffic flows without any further charge.
  c.ws.send("hello");
  await waitFor("an answer", () => c.replies.length === 1);
  // The second slice is reserved ahead of the 1 s boundary and charged once it starts.
  await waitFor("slice 2 charged", async () =>
    (await h.reservations(partyId)).some((r) => r.i === "ws-t-1 slice 2" && r.s === "registered"),
  );
  const { code } = await within(c.closed, "the gateway to close the unpaid connection");
  const lasted = Date.now() - opened;
  assert.equal(code, 4402);
  assert.ok(lasted >= 1_900, `closed after ${lasted} ms: the two paid seconds were served`);
  const records = await h.reservations(partyId);
  assert.deepEqual(records.map((r) => r.s).sort(), ["registered", "registered"], JSON.stringify(records));
  assert.equal((await h.account(partyId)).reserved, 2n * SLICE);
});

test("a connection closed by its client releases the slice reserved ahead and keeps the started ones", async () => {
  const a = await h.createAccount({ coins: "10" });
  const partyId = a.partyId as string;
  const c = connect("ws-time", a.apiKey, "ws-t-2");
  await c.opened;
  // Close just after slice 2 is reserved ahead (100 ms before the boundary) and before it starts.
  await waitFor("slice 2 reserved ahead", async () =>
    (await h.reservations(partyId)).some((r) => r.i === "ws-t-2 slice 2"),
  );
  c.ws.close(1000);
  await within(c.closed, "the close");
  await waitFor("settled state", async () => {
    const byKey = new Map((await h.reservations(partyId)).map((r) => [r.i, r.s]));
    return byKey.get("ws-t-2") === "registered" && byKey.get("ws-t-2 slice 2") !== "request_in_flight";
  });
  const { reserved, sum } = await h.checkInvariant(partyId);
  assert.equal(reserved, sum, "reserved = Σ open reservations");
  assert.ok(reserved === SLICE || reserved === 2n * SLICE, `one or two started slices charged: ${reserved}`);
});

/** A plain request with the key, as a new client would make it: its status. */
async function requestStatus(apiKey: string, key: string) {
  const res = await fetch(`${h.url}/gateway/ws-messages/rpc`, {
    headers: { "x-gateway-api-key": apiKey, "idempotency-key": key },
  });
  await res.arrayBuffer();
  return res.status;
}

test("regression: a deactivated key's open WebSocket stops at its next message (4403) and is charged no further slice", async () => {
  const a = await h.createAccount({ coins: "100" });
  const partyId = a.partyId as string;
  const c = connect("ws-messages", a.apiKey, "ws-d-1");
  await c.opened;
  const before = received;
  for (let i = 1; i <= 2; i++) c.ws.send(`{"id":${i}}`);
  await waitFor("two answers", () => c.replies.length === 2);
  await h.deactivateKey(a.keyId);
  await waitFor("a new request refused", async () => (await requestStatus(a.apiKey, "ws-d-probe")) === 403);
  for (let i = 3; i <= 8; i++) c.ws.send(`{"id":${i}}`);
  const { code, reason } = await within(c.closed, "the gateway to close the refused key's connection");
  assert.equal(code, 4403, `close code (reason ${reason})`);
  assert.equal(reason, "API Key is no longer active");
  assert.equal(received - before, 2, "no message after the deactivation reached the provider");
  const records = await h.reservations(partyId);
  assert.deepEqual(
    records.map((r) => `${r.i}: ${r.s}`).sort(),
    ["ws-d-1: registered"],
    "only the slice started before the deactivation is charged",
  );
  assert.equal((await h.account(partyId)).reserved, SLICE);
});

test("regression: an expired key's silent WebSocket (time slices) closes at the next slice boundary with nothing more charged", async () => {
  const a = await h.createAccount({ coins: "100" });
  const partyId = a.partyId as string;
  const c = connect("ws-time", a.apiKey, "ws-e-1");
  await c.opened;
  await h.db.update(gatewayApiKeys).set({ expiresAt: new Date() }).where(eq(gatewayApiKeys.id, a.keyId));
  await h.invalidate();
  const { code } = await within(c.closed, "the gateway to close the expired key's connection");
  assert.equal(code, 4403);
  await waitFor("nothing left in flight", async () =>
    (await h.reservations(partyId)).every((r) => r.s !== "request_in_flight"),
  );
  const records = await h.reservations(partyId);
  assert.deepEqual(
    records.filter((r) => r.s === "registered").map((r) => r.i),
    ["ws-e-1"],
    JSON.stringify(records),
  );
  assert.equal((await h.account(partyId)).reserved, SLICE);
});

test("regression: a party cap lowered under an open WebSocket refuses its next slice (4402)", async () => {
  const a = await h.createAccount({ coins: "100" });
  const partyId = a.partyId as string;
  const c = connect("ws-messages", a.apiKey, "ws-c-1");
  await c.opened;
  for (let i = 1; i <= 3; i++) c.ws.send(`{"id":${i}}`);
  await waitFor("three answers", () => c.replies.length === 3);
  // One slice spent today; a cap of one slice leaves nothing for the next.
  await h.db.update(parties).set({ dailySpendCap: SLICE.toString() }).where(eq(parties.id, partyId));
  await h.invalidate();
  await waitFor("a new request refused", async () => (await requestStatus(a.apiKey, "ws-c-probe")) === 402);
  c.ws.send(`{"id":4}`);
  const { code } = await within(c.closed, "the gateway to close the capped connection");
  assert.equal(code, 4402);
  assert.equal(c.replies.length, 3, "the message past the cap was not answered");
  assert.equal((await h.account(partyId)).reserved, SLICE);
});

/** A masked client text frame (RFC 6455 §5.2, §5.3), payload under 126 bytes. */
function textFrame(text: string) {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const masked = payload.map((b, i) => b ^ (mask[i % 4] as number));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

for (const [name, upgradeLines] of [
  ["a token list", "Upgrade: websocket, x\r\n"],
  ["a second Upgrade header", "Upgrade: x\r\nUpgrade: websocket\r\n"],
] as const) {
  test(`regression: an upgrade naming WebSocket in ${name} is billed per message like a WebSocket`, async (t) => {
    const a = await h.createAccount({ coins: "100" });
    const partyId = a.partyId as string;
    const key = `ws-list-${name.length}`;
    const socket = connectTcp(Number(new URL(h.url).port), "127.0.0.1");
    t.after(() => socket.destroy());
    let seen = "";
    socket.on("data", (d: Buffer) => {
      seen += d.toString("latin1");
    });
    socket.write(
      `GET /gateway/ws-lenient/rpc HTTP/1.1\r\nHost: gw\r\n${upgradeLines}Connection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n` +
        `x-gateway-api-key: ${a.apiKey}\r\nidempotency-key: ${key}\r\n\r\n`,
    );
    await waitFor("the 101", () => seen.includes("\r\n\r\n"));
    assert.match(seen, /^HTTP\/1.1 101/, seen);
    for (let i = 1; i <= 9; i++) socket.write(textFrame(`{"id":${i}}`));
    await waitFor("nine answers", () => seen.split("echo:").length - 1 === 9);
    const records = await h.reservations(partyId);
    assert.deepEqual(
      records.map((r) => `${r.i}: ${r.s}`).sort(),
      [`${key} slice 2: registered`, `${key} slice 3: registered`, `${key}: registered`],
      "nine messages at three a slice: three slices",
    );
  });
}
