import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

/** Ready, or why not: the reason is for the operator reading /readyz, so it names what to fix. */
export type Readiness = { ok: true } | { ok: false; reason: string };

/**
 * Raw node:http server: /healthz and /readyz for the platform, everything else through `handle`.
 * `checkContinue` is taken over so the 100 is sent by the handler after auth and reservation.
 */
export function createGatewayServer(deps: {
  handle: (req: IncomingMessage, res: ServerResponse, expectContinue?: boolean) => void;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  ready: () => Promise<Readiness>;
  /**
   * Node's own bound on receiving a whole request (headers and body; its headersTimeout follows, at most
   * 60 s): the backstop for requests the handler's deadline does not cover, e.g. a refused one whose body
   * Node drains.
   */
  requestTimeoutMs: number;
}): GatewayServer {
  let draining = false;
  const route = (req: IncomingMessage, res: ServerResponse, expectContinue: boolean) => {
    // A draining gateway answers what it was sent and closes each connection after its reply, so a
    // client's next request opens a connection to another gateway instead of finding this one gone.
    if (draining) res.setHeader("connection", "close");
    if (req.url === "/healthz" || req.url === "/readyz") {
      const send = (status: number, body: object) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
        });
        res.end(text);
      };
      if (req.url === "/healthz") return send(200, { status: "ok" });
      deps.ready().then(
        (r) => send(r.ok ? 200 : 503, r.ok ? { status: "ok" } : { status: "unavailable", reason: r.reason }),
        () => send(503, { status: "unavailable", reason: "Postgres or Redis unreachable" }),
      );
      return;
    }
    deps.handle(req, res, expectContinue);
  };
  const server = createServer(
    {
      keepAliveTimeout: 65_000,
      requestTimeout: deps.requestTimeoutMs,
      // Node enforces its request timeout by sweeping every connection at this interval (default 30 s):
      // a quarter of the deadline keeps the backstop within 25 % of it, for one sweep per interval.
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(deps.requestTimeoutMs / 4))),
    },
    (req, res) => {
      // Provider headers are relayed as sent: no Date added by this hop.
      res.sendDate = false;
      route(req, res, false);
    },
  );
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    res.sendDate = false;
    route(req, res, true);
  });
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    deps.upgrade(req, socket, head),
  );
  return Object.assign(server, {
    /**
     * Leaves cleanly: no new connection is accepted (a load balancer's next connect or health check is
     * refused, so it routes elsewhere), every request already received is answered (and finalized by its
     * handler) and its connection closed after the reply. Resolves when the last connection is gone, or after `boundMs` (the request deadline: no HTTP
     * request outlives it), when what is left, upgraded connections, is cut: their slices are paid ahead.
     */
    drain(boundMs: number): Promise<void> {
      draining = true;
      return new Promise<void>((resolve) => {
        // A keep-alive connection goes idle only once its reply is sent: close each as it does.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        const done = () => {
          clearInterval(sweep);
          clearTimeout(bound);
          resolve();
        };
        const bound = setTimeout(() => {
          server.closeAllConnections();
          done();
        }, boundMs);
        server.close(done);
        server.closeIdleConnections();
      });
    },
  });
}

export type GatewayServer = Server & { drain(boundMs: number): Promise<void> };
