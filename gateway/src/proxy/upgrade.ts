import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import {
  DeadlineError,
  type ErrorDetails,
  GATEWAY_ERRORS,
  type GatewayErrorCode,
  upstreamErrorCode,
} from "../errors.ts";

/** A gateway error written on a raw socket (an upgrade request has no ServerResponse). */
export function writeSocketError(socket: Duplex, code: GatewayErrorCode, details: ErrorDetails = {}) {
  if (socket.destroyed) return;
  const [status, message] = GATEWAY_ERRORS[code];
  const body = JSON.stringify(details.extra ? { message, ...details.extra } : { message });
  const retryAfter =
    details.retryAfterSeconds === undefined ? "" : `Retry-After: ${details.retryAfterSeconds}\r\n`;
  socket.end(
    `HTTP/1.1 ${status} ${status === 409 ? "Conflict" : "Error"}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `${retryAfter}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * WebSocket (or any Upgrade) tunnel: asks the provider for the upgrade through its pooled dispatcher and,
 * on 101, relays the 101 and splices the two sockets with pipe() (backpressure both ways). The provider
 * must answer within `timeoutMs` (the upstream timeout) and `deadlineMs` (what is left of the request's
 * deadline), else the upgrade is aborted (502, upstream aborted) and its reservation released.
 */
export async function tunnel(args: {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  dispatcher: Dispatcher;
  path: string;
  headers: string[];
  timeoutMs: number;
  deadlineMs: number;
}): Promise<{ ok: true } | { ok: false; code: GatewayErrorCode; error: unknown }> {
  const { socket } = args;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DeadlineError()),
    Math.min(args.timeoutMs, args.deadlineMs),
  );
  try {
    const up = await args.dispatcher.upgrade({
      path: args.path,
      method: "GET",
      headers: args.headers,
      protocol: String(args.req.headers.upgrade ?? "websocket"),
      signal: deadline.signal,
    });
    clearTimeout(timer);
    if (socket.destroyed) {
      up.socket.destroy();
      return { ok: true };
    }
    const lines = ["HTTP/1.1 101 Switching Protocols"];
    const h = up.headers as Record<string, string | string[] | undefined>;
    for (const [name, value] of Object.entries(h)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
        lines.push(`${name}: ${v}`);
    }
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (args.head.length) up.socket.write(args.head);
    up.socket.pipe(socket).pipe(up.socket);
    const close = () => {
      up.socket.destroy();
      socket.destroy();
    };
    up.socket.on("error", close).on("close", close);
    socket.on("error", close).on("close", close);
    return { ok: true };
  } catch (error) {
    clearTimeout(timer);
    return { ok: false, code: upstreamErrorCode(error), error };
  }
}
