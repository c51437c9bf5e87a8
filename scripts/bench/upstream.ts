import { createServer } from "node:http";

// The 1 KiB upstream of the benchmark, in its own process. Prints `READY <port>`.
const body = Buffer.alloc(1024, 120);
const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": body.length });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
  process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
});
