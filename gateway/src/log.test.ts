import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { pino } from "pino";
import { createAccessLog } from "./log.ts";

function capture(level: string) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  return { lines, logger: pino({ level, base: { service: "gateway" } }, sink) };
}

test("access lines have the logger's own shape, escape their fields and keep order with other lines", async () => {
  const { lines, logger } = capture("info");
  const access = createAccessLog(logger);
  logger.info({ url: "http://x" }, "gateway listening");
  access({ reqId: "req_1", method: "GET", provider: 'a"b\n', status: 200, ms: 1.5 });
  logger.error({ reservation: "rsv_1" }, "finalize failed");
  await new Promise((r) => setImmediate(r));
  assert.equal(lines.length, 3);
  const [first, line, last] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(first?.msg, "gateway listening");
  assert.equal(last?.msg, "finalize failed");
  assert.deepEqual(
    Object.keys(line ?? {}),
    Object.keys({
      level: 0,
      time: 0,
      service: 0,
      reqId: 0,
      method: 0,
      provider: 0,
      status: 0,
      ms: 0,
      msg: 0,
    }),
  );
  assert.equal(line?.level, 30);
  assert.equal(typeof line?.time, "number");
  assert.equal(line?.service, "gateway");
  assert.equal(line?.provider, 'a"b\n');
  assert.equal(line?.msg, "access");
});

test("no access line below the info level", async () => {
  const { lines, logger } = capture("warn");
  createAccessLog(logger)({ reqId: "req_1", method: "GET" });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(lines, []);
});
