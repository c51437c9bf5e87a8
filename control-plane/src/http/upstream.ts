import { AppError } from "../errors.ts";

/**
 * The one way the control plane and its worker reach a chain node or a third-party API. Every client is
 * built on it, hand-written ones through `json`, library ones (viem's `fetchFn`, `@mysten/sui`,
 * `@lodestar/api`) through `fetch` and `call`, so every area fails the same way:
 * - no answer within `timeoutMs` (headers and body) → 504 UPSTREAM_TIMEOUT;
 * - refused, reset, cut off, not JSON where JSON was due, or HTTP 5xx → 502 UPSTREAM_UNAVAILABLE;
 * - a body longer than `maxBytes` → 502 as well (`NodeAnswerRefused`): the body is streamed and the
 *   connection dropped at the cap, so a node cannot make us buffer an answer of any size.
 * A 4xx answer is returned to the caller: what it means is the protocol's business. The node's own words
 * go to the log through the error's `cause`, never to the client.
 */
export interface Upstream {
  readonly name: string;
  /** `fetch` with the timeout and the failure mapping, for library clients that accept one. */
  fetch: typeof fetch;
  /** Runs a library call; a transport failure it throws (however wrapped) becomes the upstream error. */
  call<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * A request whose whole body is read as text (for protocols that answer some errors in plain text).
   * `answers`: 5xx statuses that are an answer to the caller rather than a failure (a 501 "not implemented").
   */
  text(
    url: string | URL,
    init?: RequestInit,
    answers?: ReadonlySet<number>,
  ): Promise<{ status: number; text: string }>;
  /** A JSON request: the status and the parsed body; a body that is not JSON is a 502. */
  json<T>(url: string | URL, init?: RequestInit): Promise<{ status: number; body: T }>;
}

export interface UpstreamOptions {
  /** Names the upstream in messages ("Solana node", "Beacon node", …). */
  name: string;
  timeoutMs: number;
  /** Most bytes one answer's body may have (decoded), NODE_RESPONSE_MAX_BYTES. */
  maxBytes: number;
}

/**
 * A node answer the control plane will not use: a body past the byte cap, a value outside its schema
 * (`chains/node-values.ts`), or a follower's sanity rule broken (finality beyond the head or moving back).
 * An API caller sees the area's 502; a follower logs it at error level and does not advance.
 */
export class NodeAnswerRefused extends AppError {
  constructor(message: string, cause?: unknown) {
    super("UPSTREAM_UNAVAILABLE", message, { cause });
    this.name = "NodeAnswerRefused";
  }
}

const TRANSPORT_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "EPIPE",
  "ETIMEDOUT",
]);

/** The upstream error hidden in `err` or its causes, if it is a transport failure; else undefined. */
export function upstreamFailure(name: string, timeoutMs: number, err: unknown): AppError | undefined {
  for (let e = err, depth = 0; e && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AppError) {
      return e.code === "UPSTREAM_TIMEOUT" || e.code === "UPSTREAM_UNAVAILABLE" ? e : undefined;
    }
    // `code` is a string for Node's socket errors, a number for a JSON-RPC error viem carries.
    const { name: type, code, message } = e as { name?: string; code?: unknown; message?: string };
    if (type === "TimeoutError") {
      return new AppError("UPSTREAM_TIMEOUT", `${name} did not answer in time`, {
        cause: new Error(`no answer within ${timeoutMs} ms`, { cause: err }),
      });
    }
    if (
      (typeof code === "string" && (TRANSPORT_CODES.has(code) || code.startsWith("UND_ERR"))) ||
      (type === "TypeError" && message === "fetch failed")
    ) {
      return new AppError("UPSTREAM_UNAVAILABLE", `${name} is unreachable`, { cause: err });
    }
  }
  return undefined;
}

export function createUpstream(opts: UpstreamOptions): Upstream {
  const { name, timeoutMs, maxBytes } = opts;
  const fail = (err: unknown): never => {
    throw upstreamFailure(name, timeoutMs, err) ?? err;
  };

  const timedFetch = async (
    input: string | URL | Request,
    init?: RequestInit,
    answers?: ReadonlySet<number>,
  ) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(input, { ...init, signal });
    } catch (err) {
      // The caller's own abort stays what it is; ours is a timeout.
      if (init?.signal?.aborted && !timeout.aborted) throw err;
      return fail(err);
    }
    if (res.status >= 500 && !answers?.has(res.status)) {
      await res.body?.cancel().catch(() => {});
      throw new AppError("UPSTREAM_UNAVAILABLE", `${name} answered HTTP ${res.status}`);
    }
    return capped(res, maxBytes, name);
  };

  async function text(url: string | URL, init?: RequestInit, answers?: ReadonlySet<number>) {
    const res = await timedFetch(url, init, answers);
    try {
      return { status: res.status, text: await res.text() };
    } catch (err) {
      throw (
        upstreamFailure(name, timeoutMs, err) ??
        new AppError("UPSTREAM_UNAVAILABLE", `${name} response was cut off`, { cause: err })
      );
    }
  }

  return {
    name,
    fetch: timedFetch,
    call: (fn) => fn().catch(fail),
    text,
    async json<T>(url: string | URL, init?: RequestInit) {
      const res = await text(url, {
        ...init,
        headers: {
          accept: "application/json",
          ...(init?.body ? { "content-type": "application/json" } : {}),
          ...init?.headers,
        },
      });
      try {
        return { status: res.status, body: JSON.parse(res.text) as T };
      } catch (err) {
        throw new AppError("UPSTREAM_UNAVAILABLE", `${name} answered HTTP ${res.status} without JSON`, {
          cause: err,
        });
      }
    },
  };
}

/**
 * `res` with its body cut at `maxBytes`: past it (or at once when Content-Length says so) the body errors
 * with `NodeAnswerRefused` and the connection is dropped; whoever reads the body, our `text` or a library,
 * gets that error. Counted after decoding, so a compressed answer cannot expand past the cap either.
 */
function capped(res: Response, maxBytes: number, name: string): Response {
  const tooLarge = () => new NodeAnswerRefused(`${name} answered more than ${maxBytes} bytes`);
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  const source = res.body;
  if (!source) return res;
  if (declared > maxBytes && !res.headers.has("content-encoding")) {
    void source.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = source.getReader();
  let read = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      read += value.byteLength;
      if (read > maxBytes) {
        const err = tooLarge();
        controller.error(err);
        await reader.cancel(err).catch(() => {});
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * `items.map(fn)` with at most `limit` calls under way at once: a request that needs one node call per
 * account (1,000 stake accounts) must not open 1,000 requests to the node at the same moment.
 */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>) {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}
