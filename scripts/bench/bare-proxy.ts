import { createServer } from "node:http";
import { Pool } from "undici";

// Baseline: the thinnest streaming pass-through on undici `dispatch` (no auth, no billing, no logging).
const upstream = new Pool(process.argv[2] as string, { connections: 256 });
const server = createServer((req, res) => {
  res.sendDate = false;
  let resume: (() => void) | undefined;
  upstream.dispatch({ path: req.url ?? "/", method: "GET", headers: [] }, {
    onConnect() {},
    onHeaders(status: number, raw: Buffer[], r: () => void) {
      resume = r;
      const headers: string[] = [];
      for (let i = 0; i < raw.length; i += 2) {
        const name = (raw[i] as Buffer).toString("latin1");
        if (!/^(connection|keep-alive|transfer-encoding)$/i.test(name))
          headers.push(name, (raw[i + 1] as Buffer).toString("latin1"));
      }
      res.writeHead(status, headers);
      return true;
    },
    onData(chunk: Buffer) {
      const ok = res.write(chunk);
      if (!ok) res.once("drain", () => resume?.());
      return ok;
    },
    onComplete() {
      res.end();
    },
    onError() {
      res.destroy();
    },
  } as never);
  req.resume();
});
server.keepAliveTimeout = 65_000;
server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
  process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
});
