import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { composeArea } from "../../control-plane/src/compose.ts";
import { createCore } from "../../control-plane/src/core.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";
import { type BeaconEnv, indexedRows, startBeaconEnv } from "./fixtures.ts";

/**
 * A Beacon node's answers are hostile input. A lying proxy stands between the control
 * plane and the real beacon devnet and rewrites its answers on demand: a 100 MB body, a negative balance,
 * a balance above 2^63, finality beyond the head and finality moving back. Each time the indexer refuses,
 * logs an error naming what it refused, keeps every row it had and writes nothing; an API call that reads
 * the node answers the area's 502; once the node is sane again the indexer resumes where it stopped.
 */
const CAP = 4 * 1024 * 1024;
const HUGE = 100 * 1024 * 1024;

type Lie = "none" | "huge" | "negative" | "overflow" | "finality-ahead" | "finality-back";
let lie: Lie = "none";
let target = "";
/** Bytes the proxy sent of its last 100 MB answer before the reader hung up. */
let hugeSent = 0;
let hugeClosed: Promise<void> = Promise.resolve();

/** Rewrites the JSON of a sane answer according to `lie`. */
function rewrite(path: string, body: { data: unknown }) {
  if (/\/validators$/.test(path) && Array.isArray(body.data) && body.data.length) {
    const first = body.data[0] as { balance: string };
    if (lie === "negative") first.balance = "-5";
    if (lie === "overflow") first.balance = (2n ** 63n).toString();
  }
  if (path.endsWith("/finality_checkpoints")) {
    const data = body.data as { finalized: { epoch: string } };
    if (lie === "finality-ahead") data.finalized.epoch = "1000";
    if (lie === "finality-back") data.finalized.epoch = "0";
  }
  return body;
}

function sendHuge(res: ServerResponse) {
  hugeSent = 0;
  hugeClosed = new Promise((resolve) => res.once("close", resolve));
  // No Content-Length: only reading the body can tell how long it is.
  res.writeHead(200, { "content-type": "application/json" });
  res.write('{"data":[');
  hugeSent = 9;
  const chunk = Buffer.from(`${'{"index":"1"},'.repeat(4096)}`);
  const more = () => {
    while (!res.destroyed && hugeSent + chunk.length < HUGE) {
      hugeSent += chunk.length;
      if (!res.write(chunk)) return void res.once("drain", more);
    }
    if (!res.destroyed) res.end('{"index":"1"}]}');
  };
  more();
}

async function proxy(req: IncomingMessage, res: ServerResponse) {
  const path = req.url ?? "/";
  if (lie === "huge" && /\/validators$/.test(path)) return sendHuge(res);
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const upstream = await fetch(new URL(path, target), {
    method: req.method ?? "GET",
    headers: { "content-type": "application/json", accept: "application/json" },
    ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
  });
  let text = await upstream.text();
  if (lie !== "none" && upstream.status === 200) text = JSON.stringify(rewrite(path, JSON.parse(text)));
  res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
}

const logLines: { level: number; msg: string }[] = [];
const logSink = new Writable({
  write(chunk, _enc, done) {
    for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
    done();
  },
});

const server = createServer((req, res) => {
  proxy(req, res).catch(() => res.destroy());
});
let devnet: BeaconEnv["devnet"];
let h: ControlPlaneHarness;
let env: BeaconEnv | undefined;
let apiKey: string;
before(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  env = await startBeaconEnv({
    validators: 8,
    env: {
      ETH_BEACON_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      BEACON_INDEXER_START_EPOCH: "1",
      BEACON_INDEXER_MAX_EPOCHS: "100",
      NODE_RESPONSE_MAX_BYTES: String(CAP),
    },
  });
  ({ devnet, h } = env);
  target = devnet.url;
  apiKey = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await env?.close();
  server.closeAllConnections();
  server.close();
});

/** The beacon-data area's indexer, logging to `logLines`. */
const indexer = async () =>
  (
    await composeArea(
      createCore({
        config: h.config,
        logger: createLogger({ level: "info", service: "test", destination: logSink }),
        db: h.db,
        redis: h.redis,
      }),
      "beacon-data",
    )
  ).indexer;

const cursor = async () => (await h.sql`select epoch, finalized_epoch from beacon_indexer_cursor`)[0];
const register = (pubkey: string) =>
  supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", apiKey)
    .send({ pubkeys: [pubkey] });

test("a lying Beacon node is refused, logged and written nowhere; the indexer resumes once it is sane", async () => {
  const reg = await register(devnet.pubkeyOf(0));
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  await devnet.advanceToEndOfEpoch(4);
  const first = await (await indexer()).runOnce();
  assert.deepEqual(first, [1, 2, 3, 4]);
  const rows = await indexedRows(h.sql);
  const before = await cursor();
  assert.ok(rows.rewards.length >= 4, "the sane node's epochs are indexed");
  // New epochs the lies stand in front of: a step that believed one would write them.
  await devnet.advanceToEndOfEpoch(6);

  const cases: { lie: Lie; message: RegExp }[] = [
    { lie: "huge", message: new RegExp(`^Beacon node answered more than ${CAP} bytes$`) },
    { lie: "negative", message: /^Beacon node answered a malformed answer to .*\/validators$/ },
    { lie: "overflow", message: /^Beacon node answered a malformed answer to .*\/validators$/ },
    {
      lie: "finality-ahead",
      message: /^Beacon node answered finalized epoch 1000, beyond its head epoch 6$/,
    },
    {
      lie: "finality-back",
      message: /^Beacon node answered finalized epoch 0, behind epoch \d+ it finalized before$/,
    },
  ];
  for (const c of cases) {
    lie = c.lie;
    const logged = logLines.length;
    await assert.rejects((await indexer()).runOnce(), (err: Error & { status?: number; code?: string }) => {
      assert.equal(err.status, 502, `${c.lie}: ${err.message}`);
      assert.equal(err.code, "UPSTREAM_UNAVAILABLE");
      assert.match(err.message, c.message, c.lie);
      return true;
    });
    const errors = logLines.slice(logged).filter((l) => l.level >= 50);
    assert.equal(errors.length, 1, `${c.lie}: one error line, got ${JSON.stringify(errors)}`);
    assert.match(errors[0]!.msg, /^node answer refused, not advancing: Beacon node answered /);
    assert.deepEqual(await indexedRows(h.sql), rows, `${c.lie}: every row kept, none written`);
    assert.deepEqual(await cursor(), before, `${c.lie}: the cursor and the finality stay`);
  }
  // The 100 MB answer was cut off at the cap, not read to its end.
  await hugeClosed;
  assert.ok(hugeSent < HUGE / 4, `the proxy sent ${hugeSent} bytes of ${HUGE} before the reader hung up`);

  // An API user reading the node through a lie gets the area's upstream error, never a 500.
  lie = "overflow";
  const refused = await register(devnet.pubkeyOf(1));
  assert.equal(refused.status, 502, JSON.stringify(refused.body));
  assert.equal(refused.body.code, "UPSTREAM_UNAVAILABLE");
  assert.doesNotMatch(JSON.stringify(refused.body), /9223372036854775808|ZodError|at /);

  lie = "none";
  assert.deepEqual(await (await indexer()).runOnce(), [5, 6], "the sane node's epochs are indexed again");
  const resumed = await indexedRows(h.sql);
  assert.deepEqual(
    resumed.rewards.filter((r) => r.epoch <= 4),
    [...rows.rewards],
    "the rows from before the lies are untouched",
  );
  assert.ok(resumed.rewards.some((r) => r.epoch === 6));
  assert.ok((await cursor())!.finalized_epoch >= before!.finalized_epoch);
});
