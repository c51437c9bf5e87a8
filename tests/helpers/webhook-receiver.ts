import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1:0 that records every request (headers, raw body) and answers the status
 * `answer` chooses for it (200 by default), or holds it unanswered when `answer` returns "hold".
 */
export async function startReceiver(
  answer: (r: { headers: IncomingHttpHeaders; body: string; n: number }) => number | "hold" = () => 200,
) {
  const received: Received[] = [];
  const held: (() => void)[] = [];
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      const status = answer({ headers: req.headers, body, n: n++ });
      if (status === "hold") {
        received.push({ headers: req.headers, body, status: 0 });
        held.push(() => res.destroy());
        return;
      }
      received.push({ headers: req.headers, body, status });
      res.statusCode = status;
      res.end("ok");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    /** Requests whose body names this event type. */
    of: (type: string) => received.filter((r) => (JSON.parse(r.body) as { type: string }).type === type),
    async close() {
      for (const h of held) h();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
