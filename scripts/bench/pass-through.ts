import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Pool } from "undici";

/**
 * The thinnest streaming pass-through on undici `dispatch` (no auth, no billing, no logging): the bare
 * proxy's whole work, and the floor proxy's (floor-proxy.ts) but its Redis round trips. `onHeaders` runs
 * when the provider's response headers arrive, before they are relayed.
 */
export function passThrough(
  upstream: Pool,
  req: IncomingMessage,
  res: ServerResponse,
  onHeaders?: () => void,
) {
  let resume: (() => void) | undefined;
  upstream.dispatch({ path: req.url ?? "/", method: "GET", headers: [] }, {
    onConnect() {},
    onHeaders(status: number, raw: Buffer[], r: () => void) {
      resume = r;
      onHeaders?.();
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
}

/** Serves `handle` on a loopback port of its own and prints `READY <port>` (scripts/bench/targets.ts). */
export function listen(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    res.sendDate = false;
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  server.listen({ port: 0, host: "127.0.0.1", backlog: 4096 }, () => {
    process.stdout.write(`READY ${(server.address() as { port: number }).port}\n`);
  });
}
