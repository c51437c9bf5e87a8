import { type LookupAddress, lookup } from "node:dns";
import { Agent, request } from "undici";
import type { AddressPolicy } from "./address-policy.ts";

export interface SendResult {
  /** The receiver's status, or null when none came (refused address, transport error, timeout). */
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** A name resolved only to refused addresses: the connection is never opened. */
class RefusedAddress extends Error {
  override name = "RefusedAddress";
  readonly code = "EWEBHOOKADDRESS";
}

/**
 * The outbound side of webhook delivery. Not built on `http/upstream.ts`: that client maps failures to
 * API errors for a caller waiting on a node, while a delivery's outcome is a value the worker records.
 *
 * The SSRF guard sits in the connection itself: the agent's `lookup` resolves the name, drops every
 * address the policy refuses and hands the socket only the allowed ones, so the address checked is the
 * address connected to (no second resolution a rebinding DNS server could answer differently). An IP
 * literal skips `lookup` in `net.connect`, so it is checked before the request. Redirects are not followed
 * (a 3xx is a failed attempt). Every attempt is bounded: connect, whole attempt, response bytes read.
 */
export function createWebhookSender(deps: {
  policy: AddressPolicy;
  connectTimeoutMs: number;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Connections kept per receiver origin. */
  connectionsPerOrigin?: number;
}) {
  const { policy } = deps;
  function pinnedLookup(
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) {
    lookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err, "");
      const ok = addresses.filter((a) => policy.refusal(a.address) === null);
      if (!ok.length) {
        const why = policy.refusal(addresses[0]?.address ?? "") ?? "no address";
        return callback(new RefusedAddress(`${hostname}: ${why}`), "");
      }
      if (options.all) return callback(null, ok);
      const first = ok[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  }
  const agent = new Agent({
    connect: { timeout: deps.connectTimeoutMs, lookup: pinnedLookup } as Agent.Options["connect"],
    headersTimeout: deps.timeoutMs,
    bodyTimeout: deps.timeoutMs,
    connections: deps.connectionsPerOrigin ?? 16,
    maxRedirections: 0,
  } as Agent.Options);

  return {
    async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
      const started = performance.now();
      const done = (status: number | null, error: string | null): SendResult => ({
        status,
        latencyMs: Math.round(performance.now() - started),
        error,
      });
      const target = new URL(url);
      const host = target.hostname.replace(/^\[|\]$/g, "");
      const literal = /^[\d.]+$|:/.test(host) ? policy.refusal(host) : null;
      if (literal) return done(null, `refused: ${literal}`);
      try {
        const res = await request(target, {
          method: "POST",
          dispatcher: agent,
          headers: { ...headers, "content-type": "application/json", "user-agent": "stake-webhooks/1" },
          body,
          signal: AbortSignal.timeout(deps.timeoutMs),
        });
        // Only so much of the answer is read: the body means nothing to us, and a huge one costs memory.
        let read = 0;
        for await (const chunk of res.body) {
          read += (chunk as Buffer).length;
          if (read > deps.maxResponseBytes) {
            res.body.destroy();
            break;
          }
        }
        return done(
          res.statusCode,
          res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
        );
      } catch (err) {
        return done(null, describe(err));
      }
    },
    close: () => agent.close(),
  };
}

/** A short, secret-free account of a transport failure for the delivery's `lastError`. */
function describe(err: unknown): string {
  for (let e = err, depth = 0; e && depth < 6; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof RefusedAddress) return `refused: ${e.message}`;
    const { name, code } = e as { name?: string; code?: string };
    if (name === "TimeoutError" || name === "AbortError") return "timed out";
    if (typeof code === "string" && code !== "UND_ERR_SOCKET") return code;
  }
  return "transport error";
}
