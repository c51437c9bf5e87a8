import type { Duplex } from "node:stream";
import type { Dispatcher } from "undici";
import {
  DeadlineError,
  type ErrorDetails,
  GATEWAY_ERRORS,
  type GatewayErrorCode,
  upstreamErrorCode,
} from "../errors.ts";
import { CLOSE_UNPAID, CLOSE_UNPAID_REASON, closeFrame, FrameGate } from "./ws-frames.ts";

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
 * on 101, relays the 101 and hands back the provider's socket for `splice`. The provider must answer
 * within `timeoutMs` (the upstream timeout) and `deadlineMs` (what is left of the request's deadline),
 * else the upgrade is aborted (502, upstream aborted) and its reservation released.
 */
export async function tunnel(args: {
  socket: Duplex;
  dispatcher: Dispatcher;
  path: string;
  headers: string[];
  /** The Upgrade value sent to the provider (`upgradeProtocol`). */
  protocol: string;
  timeoutMs: number;
  deadlineMs: number;
}): Promise<{ ok: true; upstream: Duplex } | { ok: false; code: GatewayErrorCode; error: unknown }> {
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
      protocol: args.protocol,
      signal: deadline.signal,
    });
    clearTimeout(timer);
    if (!socket.destroyed) {
      const lines = ["HTTP/1.1 101 Switching Protocols"];
      const h = up.headers as Record<string, string | string[] | undefined>;
      for (const [name, value] of Object.entries(h)) {
        for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value])
          lines.push(`${name}: ${v}`);
      }
      socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    }
    return { ok: true, upstream: up.socket };
  } catch (error) {
    clearTimeout(timer);
    return { ok: false, code: upstreamErrorCode(error), error };
  }
}

/** What waits for the peer's frame in flight before a billing close gives up and cuts the sockets. */
const CLOSE_GRACE_MS = 1000;

/**
 * Splices the client and provider sockets with backpressure both ways; `head` (what the client sent after
 * its upgrade request) goes first. On a WebSocket, both directions run through a FrameGate: each client
 * message waits for `onMessage` (its slice paid), and `closeUnpaid` ends the connection on frame
 * boundaries, the client getting close code 4402 (or the code given: 4403 for a refused key) after the
 * provider's frame in flight, the provider a 1001 after the client's. Any other upgraded protocol cannot be framed, so its sockets are cut.
 */
export function splice(args: {
  client: Duplex;
  upstream: Duplex;
  head: Buffer;
  websocket: boolean;
  onMessage: () => Promise<void>;
  onClose: () => void;
}) {
  const { client, upstream } = args;
  let closed = false;
  const close = () => {
    upstream.destroy();
    client.destroy();
    if (!closed) {
      closed = true;
      args.onClose();
    }
  };
  upstream.on("error", close).on("close", close);
  client.on("error", close).on("close", close);
  if (client.destroyed) close();
  if (!args.websocket) {
    if (args.head.length) upstream.write(args.head);
    upstream.pipe(client).pipe(upstream);
    return { closeUnpaid: (_code?: number, _reason?: string) => close() };
  }
  const fromClient = new FrameGate(args.onMessage);
  const fromProvider = new FrameGate();
  if (args.head.length) fromClient.write(args.head);
  client.pipe(fromClient).pipe(upstream);
  upstream.pipe(fromProvider).pipe(client);
  return {
    closeUnpaid(code = CLOSE_UNPAID, reason = CLOSE_UNPAID_REASON) {
      setTimeout(close, CLOSE_GRACE_MS).unref();
      // Pushed through the gates, so the close frames queue behind the whole frames already passed.
      fromProvider.cut(() => {
        fromProvider.push(closeFrame(code, reason, false));
        fromProvider.push(null);
      });
      fromClient.cut(() => {
        fromClient.push(closeFrame(1001, "", true));
        fromClient.push(null);
      });
    },
  };
}
