import assert from "node:assert/strict";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { test } from "node:test";
import { createRedis } from "./client.ts";

test("a client given a logger reports connection errors to it, with its name", async () => {
  // A port nothing listens on: bound, then released.
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));

  const seen: { fields: { err?: { code?: string }; redis?: string }; msg: string }[] = [];
  const client = createRedis(`redis://127.0.0.1:${port}`, {
    name: "probe",
    logger: { warn: (fields, msg) => seen.push({ fields, msg }) },
  });
  try {
    const deadline = Date.now() + 5_000;
    while (!seen.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(seen.length > 0, "no connection error reported");
    assert.equal(seen[0]?.msg, "redis connection error");
    assert.equal(seen[0]?.fields.redis, "probe");
    assert.equal(seen[0]?.fields.err?.code, "ECONNREFUSED");
  } finally {
    client.disconnect();
  }
});
