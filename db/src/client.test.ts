import assert from "node:assert/strict";
import { once } from "node:events";
import net from "node:net";
import { after, test } from "node:test";
import { sql } from "drizzle-orm";
import { createDb } from "./client.ts";

/**
 * The driver under a Postgres that goes away (patches/postgres@3.4.9.patch): every new connection first
 * asks for the array types, and postgres.js 3.4.9 dropped that query's promise, so a connection closed or
 * terminated under it was an unhandled rejection that killed the process (porsager/postgres#1192, #1223;
 * a gateway died of it in the Postgres-outage fault test). A TCP proxy in front of the real Postgres cuts
 * the first connection exactly there.
 */
const target = new URL(process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres");

/** What the proxy does to the first connection that sends the types query. */
type Cut = "close" | "terminate";

/** The ErrorResponse Postgres sends a backend killed by pg_terminate_backend, before it closes. */
function terminated(): Buffer {
  const fields = [
    ["S", "FATAL"],
    ["V", "FATAL"],
    ["C", "57P01"],
    ["M", "terminating connection due to administrator command"],
  ];
  const body = Buffer.concat([...fields.map(([k, v]) => Buffer.from(`${k}${v}\0`)), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write("E", 0);
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

async function cuttingProxy(cut: Cut) {
  let cuts = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    upstream.pipe(client);
    client.on("data", (chunk: Buffer) => {
      if (cuts === 0 && chunk.includes("typcategory")) {
        cuts++;
        upstream.destroy();
        if (cut === "terminate") client.end(terminated());
        else client.destroy();
        return;
      }
      upstream.write(chunk);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target);
  url.host = `127.0.0.1:${port}`;
  return { url: url.toString(), cuts: () => cuts, close: () => server.close() };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on("unhandledRejection", onUnhandled);
after(() => process.off("unhandledRejection", onUnhandled));

for (const cut of ["close", "terminate"] as const) {
  test(`a connection ${cut === "close" ? "closed" : "terminated"} during its types query fails its queries, never the process, and the next connection serves`, async () => {
    const proxy = await cuttingProxy(cut);
    const pg = createDb(proxy.url, { max: 1 });
    try {
      unhandled.length = 0;
      // The first query waits on the connection that is cut: it may fail or be retried on a new one.
      await pg.db.execute(sql`select 1 as one`).catch(() => {});
      assert.equal(proxy.cuts(), 1, "the proxy cut the types query");
      const [row] = await pg.db.execute<{ one: number }>(sql`select 1 as one`);
      assert.equal(row?.one, 1);
      // A dropped rejection surfaces after the microtasks of its tick: give it a macrotask turn.
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(unhandled, []);
    } finally {
      await pg.close();
      proxy.close();
    }
  });
}
