import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * What `npm start` adds to its processes' environment so that webhooks may reach the inbox: http:// and the
 * loopback address. Only the demo's: a deployment keeps the defaults (https only, no loopback or private
 * address; docs/configuration.md).
 */
export const INBOX_ALLOWANCE = { WEBHOOK_ALLOW_HTTP: "1", WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32" };

/** One delivery as it arrived: the Standard Webhooks headers and the raw body (parsed when it is JSON). */
interface Received {
  receivedAt: string;
  path: string;
  webhookId: string | null;
  webhookTimestamp: string | null;
  webhookSignature: string | null;
  body: unknown;
  raw: string;
}

const header = (h: IncomingHttpHeaders, name: string) => {
  const v = h[name];
  return typeof v === "string" ? v : null;
};

/**
 * Whether one of the delivery's `v1,` signatures is the HMAC-SHA256 of `id.timestamp.body` under the
 * secret's bytes (docs/spec.md, "Webhooks"): what a receiver checks, written here as a receiver would,
 * without the platform's own signing code. The timestamp's age is not checked: the inbox verifies on read.
 */
function signatureValid(r: Received, secret: string): boolean {
  if (!secret.startsWith("whsec_") || !r.webhookSignature) return false;
  const expected = createHmac("sha256", Buffer.from(secret.slice(6), "base64"))
    .update(`${r.webhookId}.${r.webhookTimestamp}.${r.raw}`)
    .digest();
  return r.webhookSignature.split(" ").some((s) => {
    const given = Buffer.from(s.replace(/^v1,/, ""), "base64");
    return s.startsWith("v1,") && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/**
 * The demo's webhook receiver (`npm start`, docs/api-areas.md "Webhooks"): on loopback, a POST to any path
 * is kept (the last `keep`) and answered 204; GET lists them newest first as JSON. Given the endpoint's
 * secret in a `webhook-secret` header, GET says of each whether its signature verifies (a delivery to another
 * endpoint does not: another secret signed it). It is a demo:
 * nothing is refused, nothing is stored on disk.
 */
export async function startWebhookInbox(opts: { port?: number; keep?: number } = {}) {
  const keep = opts.keep ?? 50;
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST") {
        const raw = Buffer.concat(chunks).toString();
        let body: unknown = raw;
        try {
          body = JSON.parse(raw);
        } catch {}
        received.unshift({
          receivedAt: new Date().toISOString(),
          path: req.url ?? "/",
          webhookId: header(req.headers, "webhook-id"),
          webhookTimestamp: header(req.headers, "webhook-timestamp"),
          webhookSignature: header(req.headers, "webhook-signature"),
          body,
          raw,
        });
        received.length = Math.min(received.length, keep);
        res.writeHead(204).end();
        return;
      }
      if (req.method !== "GET") {
        res.writeHead(405, { allow: "GET, POST" }).end();
        return;
      }
      const secret = header(req.headers, "webhook-secret");
      const out = JSON.stringify({
        received: received.map(({ raw: _raw, ...r }, i) => ({
          ...r,
          signatureValid: secret ? signatureValid(received[i] as Received, secret) : null,
        })),
      });
      res.writeHead(200, { "content-type": "application/json" }).end(out);
    });
  });
  await new Promise<void>((r) => server.listen(opts.port ?? 0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
