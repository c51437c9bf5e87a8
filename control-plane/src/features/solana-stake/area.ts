import type { Db } from "@stake/db/client";
import type { Router } from "express";
import type { Config } from "../../config.ts";
import { createApiKeyAuth } from "../../http/api-key-auth.ts";
import type { AccountsRepo } from "../account-v2/repo.ts";
import { createSolanaRpc } from "./client.ts";
import { createSolanaRewardsRepo } from "./repo.ts";
import { createSolanaStakeRouter } from "./routes.ts";
import { createSolanaStakeService } from "./service.ts";

/** Wires the stake-account area (Solana) from config: one router, mounted at /api/v1 and /v1. */
export function createSolanaStakeArea(deps: {
  config: Readonly<Config>;
  db: Db;
  accounts: AccountsRepo;
}): Router {
  const rpc = createSolanaRpc({ url: deps.config.solana.rpcUrl, timeoutMs: deps.config.solana.timeoutMs });
  return createSolanaStakeRouter({
    auth: createApiKeyAuth({ accounts: deps.accounts, headers: ["x-api-key", "api-key"] }),
    service: createSolanaStakeService({ rpc }),
    rpc,
    repo: createSolanaRewardsRepo(deps.db),
    mevApiUrl: deps.config.solana.mevApiUrl.replace(/\/+$/, ""),
  });
}
