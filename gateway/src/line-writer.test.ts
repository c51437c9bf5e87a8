import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { LineWriter } from "./line-writer.ts";

function file() {
  const path = join(mkdtempSync(join(tmpdir(), "line-writer-")), "out.log");
  return { path, fd: openSync(path, "w") };
}

/**
 * Runs `body` in a child process with LineWriter imported; its stdout (read only after `readAfterMs`) and
 * exit code.
 */
async function childOutput(body: string, readAfterMs = 0): Promise<{ text: string; code: number | null }> {
  const module = JSON.stringify(new URL("./line-writer.ts", import.meta.url).href);
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", `import { LineWriter } from ${module};\n${body}`],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  child.stdout.pause();
  await new Promise((r) => setTimeout(r, readAfterMs));
  const chunks: Buffer[] = [];
  child.stdout.on("data", (d: Buffer) => chunks.push(d));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { text: Buffer.concat(chunks).toString(), code };
}

test("lines leave whole and in order, in writes of at least a chunk, and flush(cb) writes the rest", async () => {
  const { path, fd } = file();
  const writer = new LineWriter(fd, { chunkBytes: 1024 });
  const lines = Array.from({ length: 5000 }, (_, i) => `{"n":${i},"text":"${"é€𝄞".repeat(i % 7)}"}\n`);
  for (const line of lines) writer.write(line);
  await new Promise<void>((resolve, reject) => writer.flush((err) => (err ? reject(err) : resolve())));
  closeSync(fd);
  assert.equal(readFileSync(path, "utf8"), lines.join(""));
});

test("a line longer than the buffer is written whole", async () => {
  const { path, fd } = file();
  const writer = new LineWriter(fd, { chunkBytes: 64 });
  const long = `${"x".repeat(100_000)}\n`;
  writer.write("a\n");
  writer.write(long);
  writer.write("b\n");
  await new Promise((resolve) => writer.flush(resolve));
  closeSync(fd);
  assert.equal(readFileSync(path, "utf8"), `a\n${long}b\n`);
});

test("past the queue limit lines are dropped and counted, never blocking; the count follows", async () => {
  const { path, fd } = file();
  const writer = new LineWriter(fd, { chunkBytes: 1 << 20, maxQueuedBytes: 100 });
  for (let i = 0; i < 20; i++) writer.write(`line ${String(i).padStart(4, "0")}\n`); // 10 bytes each
  await new Promise((resolve) => writer.flush(resolve));
  closeSync(fd);
  const out = readFileSync(path, "utf8").split("\n").filter(Boolean);
  assert.deepEqual(
    out.slice(0, 11),
    Array.from({ length: 11 }, (_, i) => `line ${String(i).padStart(4, "0")}`),
  );
  const warning = JSON.parse(out[11] as string) as { level: number; dropped: number };
  assert.equal(warning.level, 40);
  assert.equal(warning.dropped, 9);
  assert.equal(out.length, 12);
});

test("a quiet writer's lines still leave within the flush interval, and at exit without a flush", async () => {
  const { path, fd } = file();
  const writer = new LineWriter(fd, { chunkBytes: 1 << 20, flushEveryMs: 50 });
  writer.write("quiet\n");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(readFileSync(path, "utf8"), "quiet\n");
  closeSync(fd);

  const { text: out } = await childOutput(
    'const w = new LineWriter(1); for (let i = 0; i < 3; i++) w.write("exit " + i + "\\n"); process.exit(0);',
  );
  assert.equal(out, "exit 0\nexit 1\nexit 2\n");
});

test("a reader that falls behind (pipe full, EAGAIN, partial writes) still gets every line, in order", async () => {
  const lines = 20_000;
  // Touching process.stdout first, as the gateway does for READY, lets Node make the pipe non-blocking.
  // 2 MB against a 64 KiB pipe that is not read for 0.5 s: the writer has to wait for this reader.
  // The flush callback's exit code shows the flush completed (not just the exit hook writing the rest).
  const { text, code } = await childOutput(
    `process.stdout.write("start\\n");
     const w = new LineWriter(1);
     for (let i = 0; i < ${lines}; i++) w.write(String(i).padStart(99, ".") + "\\n");
     w.flush(() => process.exit(7));`,
    500,
  );
  assert.equal(code, 7);
  const out = text.split("\n");
  assert.equal(out[0], "start");
  const got = out.slice(1).filter(Boolean);
  assert.equal(got.length, lines);
  got.forEach((line, i) => {
    if (line !== String(i).padStart(99, ".")) assert.fail(`line ${i} is ${line.slice(0, 20)}…`);
  });
});
