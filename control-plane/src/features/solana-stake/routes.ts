import type { RequestHandler } from "express";
import { Router } from "express";
import { parseOrThrow } from "../../errors.ts";
import { assertInScope, requireAuth } from "../../http/api-key-auth.ts";
import { balance } from "./balance.ts";
import type { SolanaRpc } from "./client.ts";
import { history } from "./history.ts";
import type { SolanaRewardsRepo } from "./repo.ts";
import { rewards } from "./rewards.ts";
import {
  BalanceRequest,
  DeactivateRequest,
  HistoryQuery,
  normaliseKeys,
  RewardsQuery,
  StakeRequest,
  WithdrawRequest,
} from "./schemas.ts";
import type { SolanaStakeService } from "./service.ts";

const CHAIN = "solana";

/**
 * Stake-account area (Solana), mounted at /api/v1 and at the samples' /v1. Auth per route with
 * `x-api-key` or `api-key`; body keys in either casing (validatorPubKey / validatorPubkey, …).
 */
export function createSolanaStakeRouter(deps: {
  auth: RequestHandler;
  service: SolanaStakeService;
  rpc: SolanaRpc;
  repo: SolanaRewardsRepo;
  mevApiUrl: string;
}): Router {
  const router = Router();
  const { auth, service, rpc } = deps;

  router.post("/stake", auth, async (req, res) => {
    const input = parseOrThrow(StakeRequest, normaliseKeys(req.body));
    const a = requireAuth(req);
    assertInScope(a, CHAIN, input.walletPubKey);
    assertInScope(a, CHAIN, input.validatorPubKey, "validator");
    res.json({ success: true, data: await service.stake(input) });
  });

  router.post("/deactivate", auth, async (req, res) => {
    const input = parseOrThrow(DeactivateRequest, normaliseKeys(req.body));
    const a = requireAuth(req);
    assertInScope(a, CHAIN, input.walletPubKey);
    assertInScope(a, CHAIN, input.validatorPubKey, "validator");
    res.json({ success: true, data: await service.deactivate(input) });
  });

  router.post("/withdraw", auth, async (req, res) => {
    const input = parseOrThrow(WithdrawRequest, normaliseKeys(req.body));
    const a = requireAuth(req);
    assertInScope(a, CHAIN, input.walletPubKey);
    assertInScope(a, CHAIN, input.validatorPubKey, "validator");
    res.json({ success: true, data: await service.withdraw(input) });
  });

  router.post("/balance", auth, async (req, res) => {
    const input = parseOrThrow(BalanceRequest, normaliseKeys(req.body));
    const a = requireAuth(req);
    res.json({ success: true, data: await balance(rpc, input, (addr) => assertInScope(a, CHAIN, addr)) });
  });

  router.get("/rewards", auth, async (req, res) => {
    const q = parseOrThrow(RewardsQuery, req.query, "query");
    const a = requireAuth(req);
    res.json(await rewards(deps, q, (addr) => assertInScope(a, CHAIN, addr)));
  });

  router.get("/history/events", auth, async (req, res) => {
    const q = parseOrThrow(HistoryQuery, req.query, "query");
    const a = requireAuth(req);
    res.json(await history(deps, q, (addr) => assertInScope(a, CHAIN, addr)));
  });

  return router;
}
