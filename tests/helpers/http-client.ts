import { request as httpRequest } from "node:http";

export interface RawResponse {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A plain node:http request with raw `[name, value, …]` headers, so a header can be sent twice. */
export function send(
  url: string,
  options: { method?: string; headers?: string[]; body?: string | Buffer; agent?: false } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // The path is sent as written: WHATWG URL parsing would resolve `..` and `%2e%2e` client-side.
    const origin = /^http:\/\/[^/]+/.exec(url)?.[0] ?? "";
    const { hostname, port } = new URL(origin);
    const req = httpRequest({
      hostname,
      port,
      path: url.slice(origin.length) || "/",
      method: options.method ?? "GET",
      // With raw array headers node:http adds no Host, which HTTP/1.1 requires.
      headers: ["Host", new URL(url).host, ...(options.headers ?? [])],
      agent: false,
    });
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? "",
          rawHeaders: res.rawHeaders,
          headers: res.headers,
          body: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

export function json(r: RawResponse): unknown {
  return JSON.parse(r.body.toString("utf8"));
}

/** The head of a WebSocket upgrade request for `path`, with extra `name: value` headers, as raw text. */
export function upgradeRequestHead(path: string, headers: Record<string, string>): string {
  const lines = [
    `GET ${path} HTTP/1.1`,
    "Host: x",
    "Upgrade: websocket",
    "Connection: Upgrade",
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    "Sec-WebSocket-Version: 13",
  ];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}
