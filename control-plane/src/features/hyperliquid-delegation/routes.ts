import { type RequestHandler, Router } from "express";
import { parseOrThrow } from "../../errors.ts";
import { requireAuth } from "../../http/api-key-auth.ts";
import { BalanceQuery, BroadcastRequest, OperationRequest } from "./schemas.ts";
import type { HyperliquidService, Operation } from "./service.ts";

const OPERATIONS: readonly Operation[] = ["delegate", "undelegate", "withdraw", "transfer"];

/** Delegation area (Hyperliquid), mounted at /api/v1/staking; header `api-key` on every route. */
export function createHyperliquidRouter(deps: { service: HyperliquidService; auth: RequestHandler }): Router {
  const router = Router();
  const { service, auth } = deps;

  for (const op of OPERATIONS) {
    router.post(`/${op}`, auth, async (req, res) => {
      const input = parseOrThrow(OperationRequest, req.body);
      res.json({ result: await service.prepare(op, input, requireAuth(req)) });
    });
  }

  router.get("/balance", auth, async (req, res) => {
    const { delegatorAddress } = parseOrThrow(BalanceQuery, req.query, "query");
    res.json({ result: await service.balance(delegatorAddress, requireAuth(req)) });
  });

  router.post("/broadcast", auth, async (req, res) => {
    const { signedTransaction } = parseOrThrow(BroadcastRequest, req.body);
    res.json({ result: await service.broadcast(signedTransaction, requireAuth(req)) });
  });

  return router;
}
