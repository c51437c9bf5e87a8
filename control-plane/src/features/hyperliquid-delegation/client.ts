import { AppError } from "../../errors.ts";

/**
 * The only way this area talks to Hyperliquid: POST /info and /exchange with a per-call timeout. A refused
 * connection, a timeout or a non-JSON answer become 502 UPSTREAM_UNAVAILABLE, never a hang.
 */
export function createHyperliquidClient(opts: { baseUrl: string; timeoutMs: number }) {
  async function post(
    path: "/info" | "/exchange",
    body: unknown,
  ): Promise<{ status: number; body: unknown }> {
    let res: Response;
    try {
      res = await fetch(`${opts.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(opts.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === "TimeoutError";
      throw new AppError(
        "UPSTREAM_UNAVAILABLE",
        timedOut
          ? `Hyperliquid API did not answer within ${opts.timeoutMs} ms`
          : "Hyperliquid API is unreachable",
        { cause: err },
      );
    }
    let text: string;
    try {
      text = await res.text();
    } catch (err) {
      throw new AppError("UPSTREAM_UNAVAILABLE", "Hyperliquid API response was cut off", { cause: err });
    }
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch {
      return { status: res.status, body: text };
    }
  }

  return {
    /** An info query; anything but a 200 JSON answer is an upstream failure. */
    async info<T>(body: Record<string, unknown>): Promise<T> {
      const res = await post("/info", body);
      if (res.status !== 200 || typeof res.body === "string") {
        throw new AppError(
          "UPSTREAM_UNAVAILABLE",
          `Hyperliquid info ${String(body.type)} failed (HTTP ${res.status})`,
        );
      }
      return res.body as T;
    },
    /**
     * Relays a signed action. Hyperliquid reports business failures as HTTP 200 {"status":"err","response":msg}
     * and malformed bodies as HTTP 422 text; both come back as `{ok:false, message}`.
     */
    async exchange(body: unknown): Promise<{ ok: true } | { ok: false; message: string }> {
      const res = await post("/exchange", body);
      const b = res.body as { status?: unknown; response?: unknown } | string;
      if (res.status === 200 && typeof b === "object" && b?.status === "ok") return { ok: true };
      if (res.status === 200 && typeof b === "object" && b?.status === "err") {
        return { ok: false, message: String(b.response) };
      }
      if (res.status >= 400 && res.status < 500) {
        return { ok: false, message: typeof b === "string" ? b : `HTTP ${res.status}` };
      }
      throw new AppError("UPSTREAM_UNAVAILABLE", `Hyperliquid exchange answered HTTP ${res.status}`);
    },
  };
}

export type HyperliquidClient = ReturnType<typeof createHyperliquidClient>;
