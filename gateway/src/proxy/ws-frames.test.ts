import assert from "node:assert/strict";
import { test } from "node:test";
import { closeFrame, FrameGate } from "./ws-frames.ts";

/** A client frame (masked, RFC 6455 §5.2) with `payload` of the given length. */
function frame(opcode: number, length: number, fin = true): Buffer {
  const head =
    length < 126
      ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | length])
      : length < 65536
        ? Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 126, length >> 8, length & 0xff])
        : Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode, 0x80 | 127]), Buffer.alloc(8)]);
  if (length >= 65536) head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, Buffer.from([1, 2, 3, 4]), Buffer.alloc(length, 7)]);
}

async function run(gate: FrameGate, input: Buffer, chunk: number): Promise<Buffer> {
  const out: Buffer[] = [];
  gate.on("data", (b: Buffer) => out.push(b));
  for (let i = 0; i < input.length; i += chunk) gate.write(input.subarray(i, i + chunk));
  gate.end();
  await new Promise((r) => gate.on("end", r));
  return Buffer.concat(out);
}

test("passes every byte unchanged and counts data messages, not continuations or control frames, however the bytes are split", async () => {
  const input = Buffer.concat([
    frame(1, 5),
    frame(2, 300, false), // a fragmented binary message: 1 message
    frame(0, 70_000),
    frame(9, 0), // ping
    frame(1, 0),
  ]);
  for (const chunk of [1, 3, 7, 1000, input.length]) {
    let messages = 0;
    const out = await run(
      new FrameGate(async () => {
        messages++;
      }),
      input,
      chunk,
    );
    assert.ok(out.equals(input), `bytes unchanged, chunk ${chunk}`);
    assert.equal(messages, 3, `chunk ${chunk}`);
  }
});

test("cut() stops at the next frame boundary, after the frame in flight", async () => {
  const gate = new FrameGate();
  const out: Buffer[] = [];
  gate.on("data", (b: Buffer) => out.push(b));
  const first = frame(1, 10);
  gate.write(first.subarray(0, 8)); // mid-frame
  let cutAt = -1;
  gate.cut(() => {
    cutAt = Buffer.concat(out).length;
  });
  gate.write(Buffer.concat([first.subarray(8), frame(1, 4)]));
  await new Promise((r) => setImmediate(r));
  assert.equal(cutAt, first.length, "the whole first frame, nothing of the second");
  assert.equal(Buffer.concat(out).length, first.length);
});

test("close frames: status code and reason, masked towards the provider", () => {
  assert.deepEqual([...closeFrame(4402, "x", false)], [0x88, 3, 0x11, 0x32, 0x78]);
  const masked = closeFrame(1001, "", true);
  assert.equal(masked[1], 0x80 | 2);
  const key = masked.subarray(2, 6);
  assert.deepEqual(
    [(masked[6] as number) ^ (key[0] as number), (masked[7] as number) ^ (key[1] as number)],
    [0x03, 0xe9],
  );
});
