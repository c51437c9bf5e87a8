import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { test } from "node:test";
import { startRedis, stateDir } from "../../../scripts/lib/infra.ts";
import { freePort } from "../../../scripts/lib/ports.ts";
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

test("a unix:// URL connects over the Redis server's Unix socket", async () => {
  const dir = path.join(stateDir(), "redis-socket-test", `${process.pid}-${randomBytes(3).toString("hex")}`);
  const socket = path.join(dir, "redis.sock");
  const server = await startRedis({
    dir,
    port: await freePort(),
    args: ["--appendonly", "no", "--unixsocket", socket, "--unixsocketperm", "700"],
  });
  const client = createRedis(`unix://${socket}?db=3`, { name: "socket-probe" });
  try {
    await client.set("probe", "over the socket");
    assert.equal(await client.get("probe"), "over the socket");
    // Redis's own view of the connection: a Unix-socket client (flag U) on db 3.
    const info = String(await client.call("CLIENT", "INFO"));
    assert.match(info, / flags=[A-Za-z]*U/);
    assert.match(info, / db=3 /);
  } finally {
    client.disconnect();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
