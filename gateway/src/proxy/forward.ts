import type { IncomingMessage, ServerResponse } from "node:http";
import type { Dispatcher } from "undici";
import { DeadlineError, type GatewayErrorCode, upstreamErrorCode } from "../errors.ts";
import { responseHeaders } from "../routing/headers.ts";

export type ForwardOutcome =
  /** The provider answered with `status`; `complete` is false when the client left mid-body. */
  | { kind: "response"; status: number; complete: boolean }
  /**
   * The client left before the provider's response started; `delivered`: the whole request had been
   * written to the provider's connection by then (so the provider was already answering it).
   */
  | { kind: "client-aborted"; delivered: boolean }
  /** The deadline passed before the provider's response started; `uploaded`: the whole body had arrived. */
  | { kind: "deadline"; uploaded: boolean }
  /** Transport failure; `responseStarted` means the 502 can no longer be sent. */
  | {
      kind: "upstream-error";
      code: GatewayErrorCode;
      responseStarted: boolean;
      status?: number;
      error: unknown;
    };

/**
 * Streams the request to the provider and the response back, both ways with backpressure: undici pulls
 * the request body from `req` as the upstream socket drains, and a full client socket pauses the
 * upstream read until 'drain'. Nothing is buffered. A client that goes away aborts the upstream request.
 *
 * One timer bounds everything before the provider's response headers, the client's upload included
 * (undici's headersTimeout only starts once the body is written, so a trickled body would outlive it):
 * at `deadlineMs` the upstream request is aborted. `onDeadline` runs first, so the caller's answer is
 * written before the abort tears down the request body (and with it the client socket).
 */
export function forward(args: {
  req: IncomingMessage;
  res: ServerResponse;
  dispatcher: Dispatcher;
  path: string;
  headers: string[];
  hasBody: boolean;
  timeoutMs: number;
  deadlineMs: number;
  onDeadline: (uploaded: boolean) => void;
  /**
   * Called once with the provider's final status and the header fields (name/value pairs) about to be
   * relayed, before they are: the gateway appends its own to them.
   */
  onResponse?: (status: number, fields: string[]) => void;
}): Promise<ForwardOutcome> {
  const { req, res } = args;
  return new Promise((resolve) => {
    let settled = false;
    let status = 0;
    let abortUpstream: ((err: Error) => void) | undefined;
    let resume: (() => void) | undefined;
    let bodyless = false;
    let expired = false;
    let delivered = false;
    const settle = (o: ForwardOutcome) => {
      if (!settled) {
        settled = true;
        clearTimeout(deadline);
        resolve(o);
      }
    };
    const deadline = setTimeout(() => {
      if (settled || status) return;
      expired = true;
      res.off("close", onClientClose);
      args.onDeadline(req.complete);
      settle({ kind: "deadline", uploaded: req.complete });
      abortUpstream?.(new DeadlineError());
    }, args.deadlineMs);
    const onClientClose = () => {
      if (res.writableFinished) return;
      // Settle first: aborting can call onError synchronously, which must not count as a provider failure.
      settle(status ? { kind: "response", status, complete: false } : { kind: "client-aborted", delivered });
      abortUpstream?.(new Error("client closed the connection"));
    };
    res.once("close", onClientClose);

    const hasBody = args.hasBody;
    if (!hasBody) req.resume();

    args.dispatcher.dispatch(
      {
        path: args.path,
        method: req.method as Dispatcher.HttpMethod,
        headers: args.headers,
        body: hasBody ? req : null,
        headersTimeout: args.timeoutMs,
        bodyTimeout: args.timeoutMs,
      },
      {
        onConnect(abort: (err?: Error) => void) {
          abortUpstream = abort;
          if (expired) abort(new DeadlineError());
          else if (res.destroyed) abort(new Error("client closed the connection"));
        },
        onRequestSent() {
          delivered = true;
        },
        onHeaders(statusCode: number, raw: Buffer[], resumeUpstream: () => void, statusText: string) {
          if (statusCode < 200) return true; // 1xx interim answers are not relayed
          status = statusCode;
          // Decided: the reservation leaves flight here, and a long streamed body is no longer bounded.
          clearTimeout(deadline);
          resume = resumeUpstream;
          const headers = responseHeaders(raw);
          args.onResponse?.(statusCode, headers);
          if (res.destroyed) return false;
          if (statusText) res.writeHead(statusCode, statusText, headers);
          else res.writeHead(statusCode, headers);
          if (statusCode === 204 || statusCode === 304 || req.method === "HEAD") {
            // No body can follow. undici 7 reports a 304 that carries the entity's Content-Length as a
            // length mismatch, so the exchange is complete here and anything later is ignored.
            bodyless = true;
            res.off("close", onClientClose);
            res.end();
            settle({ kind: "response", status, complete: true });
          }
          return true;
        },
        onData(chunk: Buffer) {
          if (res.destroyed || bodyless) return !bodyless;
          const ok = res.write(chunk);
          if (!ok) res.once("drain", () => resume?.());
          return ok;
        },
        onComplete() {
          if (bodyless) return;
          res.off("close", onClientClose);
          if (!res.destroyed) res.end();
          settle({ kind: "response", status, complete: true });
        },
        onError(error: Error) {
          if (bodyless) return;
          res.off("close", onClientClose);
          const code = upstreamErrorCode(error);
          if (status) {
            // Headers are out: the only honest signal left is to cut the client connection.
            res.destroy();
            settle({ kind: "upstream-error", code, responseStarted: true, status, error });
          } else settle({ kind: "upstream-error", code, responseStarted: false, error });
        },
      } as unknown as Dispatcher.DispatchHandler,
    );
  });
}
