import { createServer } from "node:http";

/**
 * A demo third-party provider for `npm start`: answers every request with a small JSON document that
 * echoes what reached it, so a caller can see what the gateway forwarded (and that the key header did not).
 * PORT (default 4010); prints `READY <url>`.
 */
const server = createServer((req, res) => {
  let bytes = 0;
  req.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
  });
  req.on("end", () => {
    const body = JSON.stringify({
      provider: "demo",
      method: req.method,
      url: req.url,
      bodyBytes: bytes,
      headers: req.headers,
      servedAt: new Date().toISOString(),
    });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(Number(process.env.PORT ?? 4010), "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`READY http://127.0.0.1:${port}\n`);
});
const stop = () => server.close(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
