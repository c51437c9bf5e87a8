import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { upgradeRequestHead } from "../helpers/http-client.ts";

// Upgrade (WebSocket) requests: same stages and errors; the first slice is charged on the provider's 101 (the
// slices after it: websocket-billing.test.ts).
let h: GatewayHarness;
const upstream = createServer((_req, res) => res.end("no upgrade"));
const upgradeHeaders: string[][] = [];
let upstreamClosed = 0;
upstream.on("upgrade", (req, socket: Socket) => {
  upgradeHeaders.push(req.rawHeaders);
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: test\r\n\r\n",
  );
  socket.on("data", (d: Buffer) => socket.write(Buffer.concat([Buffer.from("echo:"), d])));
  // A real WebSocket server answers the peer's FIN with its own (http sockets are half-open capable).
  socket.on("end", () => socket.end());
  socket.on("close", () => {
    upstreamClosed++;
  });
});

before(async () => {
  h = await createGatewayHarness();
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  await h.setRate("1");
  await h.addProvider("ws", `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, "0.5");
});
after(async () => {
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  await h.close();
});

function open(headers: Record<string, string>) {
  const socket = connect(Number(new URL(h.url).port), "127.0.0.1");
  socket.write(upgradeRequestHead("/gateway/ws/socket", headers));
  let data = "";
  socket.on("data", (d: Buffer) => {
    data += d.toString("latin1");
  });
  const until = (re: RegExp) => eventually(() => re.test(data) && data, { what: `${re} on the socket` });
  return { socket, until };
}

test("an upgrade is tunnelled both ways, its first slice charged and registered on 101", async () => {
  const acct = await h.createAccount({ coins: "1" });
  const ws = open({ "x-gateway-api-key": acct.apiKey, "idempotency-key": "ws-1" });
  assert.match(await ws.until(/\r\n\r\n/), /^HTTP\/1\.1 101 /);
  ws.socket.write("ping");
  assert.match(await ws.until(/echo:ping/), /echo:ping/);
  ws.socket.write("again");
  assert.match(await ws.until(/echo:again/), /echo:again/);
  const { reserved } = await h.account(acct.partyId as string);
  assert.equal(reserved, 5_000_000_000n); // 0.5 USD at 1 USD/coin: the first slice (60 s by default)
  const [rec] = await h.reservations(acct.partyId as string);
  assert.equal(rec?.s, "registered");
  const names = (upgradeHeaders.at(-1) ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
  assert.ok(!names.includes("x-gateway-api-key"));
  ws.socket.destroy();
  await eventually(() => upstreamClosed > 0, { what: "the provider side to close" });
  assert.equal(upstreamClosed, 1, "closing the client closes the provider side");
});

test("upgrade refusals use the gateway error table and charge nothing", async () => {
  const none = open({ "idempotency-key": "x" });
  const text = await none.until(/\{"message":"Unauthorized"\}/);
  assert.match(text, /^HTTP\/1\.1 401 /);
  none.socket.destroy();
  const poor = await h.createAccount({ coins: "0.1" });
  const broke = open({ "x-gateway-api-key": poor.apiKey, "idempotency-key": "ws-2" });
  assert.match(await broke.until(/Party does not have enough balance/), /^HTTP\/1\.1 403 /);
  broke.socket.destroy();
  assert.equal((await h.account(poor.partyId as string)).reserved, 0n);
});
