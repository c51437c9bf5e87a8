import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/**
 * A scriptable upstream on loopback. Routes pick a behaviour; every request that reaches it is recorded,
 * which is how tests prove what the gateway forwarded (or that it forwarded nothing).
 */
export async function startProvider() {
  const seen: SeenRequest[] = [];
  const closedEarly: string[] = [];
  let hold: Promise<void> = Promise.resolve();

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: Buffer) => void> = {
    "/echo": (req, res, body) => {
      const text = JSON.stringify({ method: req.method, url: req.url, length: body.length });
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
      res.end(text);
    },
    "/status": (req, res) => {
      const code = Number(new URL(req.url ?? "", "http://x").searchParams.get("code") ?? "200");
      const body = `provider body for ${code}\n`;
      const headers: string[] = [
        "X-Provider-Case",
        "MiXeD",
        "Set-Cookie",
        "a=1",
        "Set-Cookie",
        "b=2",
        "Content-Length",
        String(Buffer.byteLength(body)),
        "Content-Type",
        "text/plain",
      ];
      if (code >= 300 && code < 400) headers.push("Location", "/elsewhere?x=1");
      res.writeHead(code, "Custom Reason", headers);
      res.end(body);
    },
    "/hang": () => {},
    "/reset-before": (req) => req.socket.destroy(),
    "/reset-mid": (_req, res) => {
      res.writeHead(200, { "Content-Length": "1000" });
      res.write("x".repeat(100));
      setTimeout(() => res.socket?.destroy(), 20);
    },
    "/slow": (req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.write("first chunk\n");
      const timer = setInterval(() => res.write("tick\n"), 20);
      res.on("close", () => {
        clearInterval(timer);
        if (!res.writableFinished) closedEarly.push(req.url ?? "");
      });
    },
    "/held": (req, res) => {
      res.on("close", () => {
        if (!res.writableFinished) closedEarly.push(req.url ?? "");
      });
      void hold.then(() => {
        if (!res.destroyed) res.end("released");
      });
    },
    "/big": (req, res) => {
      const total = Number(new URL(req.url ?? "", "http://x").searchParams.get("bytes") ?? "0");
      const chunk = Buffer.alloc(64 * 1024, 97);
      let sent = 0;
      res.writeHead(200, { "Content-Length": String(total), "Content-Type": "application/octet-stream" });
      const pump = () => {
        while (sent < total) {
          const n = Math.min(chunk.length, total - sent);
          sent += n;
          if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n)))
            return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    },
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders, body });
      const route = Object.keys(routes).find((r) => (req.url ?? "").replace(/^\/base/, "").startsWith(r));
      const fn = route ? routes[route] : undefined;
      if (fn) fn(req, res, body);
      else routes["/echo"]?.(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    closedEarly,
    /** Until the returned release() is called, /held requests wait (to keep reservations in flight). */
    holdRequests() {
      let release = () => {};
      hold = new Promise<void>((r) => {
        release = r;
      });
      return release;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
