import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { AppError } from "../errors.ts";
import { createUpstream, mapConcurrent, NodeAnswerRefused } from "./upstream.ts";

let server: Server;
let endlessClosed: () => void;
const endlessGone = new Promise<void>((r) => {
  endlessClosed = r;
});
let base: string;
before(async () => {
  server = createServer((req, res) => {
    switch (req.url) {
      case "/ok":
        return void res.end('{"a":1}');
      case "/silent":
        return; // never answers
      case "/slow-body":
        res.writeHead(200);
        return void res.write('{"a":');
      case "/reset":
        res.writeHead(200);
        res.write('{"a":');
        return void setTimeout(() => req.socket.destroy(), 10);
      case "/503":
        return void res.writeHead(503).end("down");
      case "/endless": {
        // An answer with no end and no Content-Length: only the cap stops it.
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once("drain", more);
        };
        res.on("close", () => endlessClosed());
        return void more();
      }
      case "/declared":
        return void res.writeHead(200, { "content-length": "5000" }).end(" ".repeat(5000));
      case "/at-cap":
        return void res.end(`"${"x".repeat(4094)}"`);
      case "/422":
        return void res.writeHead(422).end("bad action");
      default:
        return void res.end("not json");
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

// Short, so the timeout tests end quickly; an answer that must arrive gets a client whose bound a busy
// machine never reaches (the first fetch of a process warms undici up: over 600 ms at load 15).
const node = createUpstream({ name: "Test node", timeoutMs: 600, maxBytes: 4096 });
const patient = createUpstream({ name: "Test node", timeoutMs: 60_000, maxBytes: 4096 });
const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => (e instanceof AppError ? `${e.status} ${e.code}` : String(e)),
  );

test("JSON answers and 4xx pass through", async () => {
  assert.deepEqual(await patient.json(`${base}/ok`), { status: 200, body: { a: 1 } });
  assert.deepEqual(await patient.text(`${base}/422`), { status: 422, text: "bad action" });
});

test("a timeout is always 504, in the headers or in the body", async () => {
  assert.equal(await codeOf(node.json(`${base}/silent`)), "504 UPSTREAM_TIMEOUT");
  assert.equal(await codeOf(node.json(`${base}/slow-body`)), "504 UPSTREAM_TIMEOUT");
});

test("unreachable, reset, 5xx and non-JSON are always 502", async () => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
  const port = (closed.address() as AddressInfo).port;
  closed.close();
  assert.equal(await codeOf(patient.json(`http://127.0.0.1:${port}/`)), "502 UPSTREAM_UNAVAILABLE");
  assert.equal(await codeOf(patient.json(`${base}/reset`)), "502 UPSTREAM_UNAVAILABLE");
  assert.equal(await codeOf(patient.json(`${base}/503`)), "502 UPSTREAM_UNAVAILABLE");
  assert.equal(await codeOf(patient.json(`${base}/text`)), "502 UPSTREAM_UNAVAILABLE");
});

test("a body past the byte cap is refused, streamed and cut off, for our reader and a library's alike", async () => {
  const refused = (p: Promise<unknown>) =>
    assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof NodeAnswerRefused, String(e));
      assert.equal(e.status, 502);
      assert.equal(e.message, "Test node answered more than 4096 bytes");
      return true;
    });
  await refused(patient.json(`${base}/endless`));
  // The node's connection is dropped at the cap, not read to its end (it has none).
  await endlessGone;
  await refused(patient.text(`${base}/declared`));
  // A library reading `fetch`'s body itself (viem, @mysten/sui) meets the same error, and call() keeps it.
  await refused(patient.call(async () => (await patient.fetch(`${base}/endless`)).json()));
  // Exactly the cap is still an answer.
  assert.equal((await patient.json<string>(`${base}/at-cap`)).body.length, 4094);
});

test("call() finds a transport failure however a library wraps it, and leaves other errors alone", async () => {
  const wrapped = async () => {
    try {
      await node.fetch(`${base}/silent`);
    } catch (err) {
      throw new Error("HTTP request failed", { cause: err });
    }
  };
  assert.equal(await codeOf(node.call(wrapped)), "504 UPSTREAM_TIMEOUT");
  const refusal = Object.assign(new Error("connect"), { code: "ECONNREFUSED" });
  assert.equal(
    await codeOf(node.call(() => Promise.reject(new Error("x", { cause: refusal })))),
    "502 UPSTREAM_UNAVAILABLE",
  );
  const revert = new Error("execution reverted");
  await assert.rejects(
    node.call(() => Promise.reject(revert)),
    (e) => e === revert,
  );
  // A JSON-RPC error carries a numeric code (viem's RpcError): left alone too, not a TypeError.
  const rpc = Object.assign(new Error("missing trie node"), { code: -32000 });
  await assert.rejects(
    node.call(() => Promise.reject(new Error("call failed", { cause: rpc }))),
    (e) => (e as Error).message === "call failed",
  );
});

test("the caller's own abort is not reported as the node's fault", async () => {
  const controller = new AbortController();
  const pending = node.fetch(`${base}/silent`, { signal: controller.signal });
  controller.abort();
  await assert.rejects(pending, (e: Error) => e.name === "AbortError");
});

test("mapConcurrent keeps order and never runs more than its limit at once", async () => {
  let running = 0;
  let peak = 0;
  const out = await mapConcurrent([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, n * 3));
    running--;
    return n * 10;
  });
  assert.deepEqual(out, [50, 10, 40, 20, 30, 0, 60]);
  assert.equal(peak, 3);
});
