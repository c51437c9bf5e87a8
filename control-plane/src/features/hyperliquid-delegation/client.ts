import { z } from "zod";
import { decimalAmount, jsonUint, nodeAnswer } from "../../chains/node-values.ts";
import { AppError } from "../../errors.ts";
import type { Upstream } from "../../http/upstream.ts";

/** The info answers the area reads: amounts are non-negative decimal HYPE strings, times ms numbers. */
export const HyperliquidInfo = {
  spotClearinghouseState: z.object({
    balances: z.array(z.object({ coin: z.string(), total: decimalAmount() })).optional(),
  }),
  delegatorSummary: z.object({
    delegated: decimalAmount(),
    undelegated: decimalAmount(),
    totalPendingWithdrawal: decimalAmount(),
  }),
  delegations: z.array(
    z.object({ validator: z.string(), amount: decimalAmount(), lockedUntilTimestamp: jsonUint() }),
  ),
  delegatorRewards: z.array(
    z.object({
      time: jsonUint(),
      source: z.enum(["delegation", "commission"]),
      totalAmount: decimalAmount(),
    }),
  ),
  delegatorHistory: z.array(
    z.object({
      time: jsonUint(),
      hash: z.string(),
      delta: z.record(
        z.string(),
        z.object({
          amount: decimalAmount().optional(),
          validator: z.string().optional(),
          isUndelegate: z.boolean().optional(),
          phase: z.string().optional(),
        }),
      ),
    }),
  ),
} as const;
type InfoType = keyof typeof HyperliquidInfo;

/**
 * The only way this area talks to Hyperliquid: POST /info and /exchange through the outbound client
 * (timeout → 504, unreachable or 5xx → 502).
 */
export function createHyperliquidClient(opts: { baseUrl: string; upstream: Upstream }) {
  const { upstream } = opts;
  async function post(path: "/info" | "/exchange", body: unknown) {
    const res = await upstream.text(`${opts.baseUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    try {
      return { status: res.status, body: JSON.parse(res.text) as unknown };
    } catch {
      return { status: res.status, body: res.text };
    }
  }

  return {
    /**
     * An info query; anything but a 200 JSON answer is an upstream failure, and an answer outside its
     * schema (`HyperliquidInfo`) is refused.
     */
    async info<K extends InfoType>(
      body: { type: K } & Record<string, unknown>,
    ): Promise<z.output<(typeof HyperliquidInfo)[K]>> {
      const res = await post("/info", body);
      if (res.status !== 200 || typeof res.body === "string") {
        throw new AppError(
          "UPSTREAM_UNAVAILABLE",
          `Hyperliquid info ${body.type} failed (HTTP ${res.status})`,
        );
      }
      return nodeAnswer(HyperliquidInfo[body.type], res.body, {
        node: upstream.name,
        what: `info ${body.type}`,
      }) as z.output<(typeof HyperliquidInfo)[K]>;
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
