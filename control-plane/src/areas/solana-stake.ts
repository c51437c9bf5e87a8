import { z } from "zod";
import type { Core } from "../core.ts";
import { createSolanaRpc } from "../features/solana-stake/client.ts";
import { createSolanaRewardsRepo } from "../features/solana-stake/repo.ts";
import { solanaStakeArea } from "../features/solana-stake/routes.ts";
import { createSolanaStakeService } from "../features/solana-stake/service.ts";
import { createUpstream } from "../http/upstream.ts";
import { createReadThroughGuard } from "../platform/chain-identity/guard.ts";

/** The node, its reward cache and the chain check the area reads through (the statements read the same). */
export function solanaReads({ config, db, logger }: Core) {
  const rpc = createSolanaRpc({
    url: config.solana.rpcUrl,
    upstream: createUpstream({
      name: "Solana node",
      timeoutMs: config.solana.timeoutMs,
      maxBytes: config.nodeResponseMaxBytes,
    }),
  });
  return {
    rpc,
    assertServing: createReadThroughGuard({
      db,
      area: "solana-stake",
      policy: config.chainResetPolicy,
      logger: logger.child({ component: "solana-rewards" }),
      identify: async () => ({
        genesis_hash: await rpc.call("getGenesisHash", [], z.string().min(32).max(44)),
      }),
      forget: () => {},
    }),
    repo: createSolanaRewardsRepo(db),
    mevApiUrl: config.solana.mevApiUrl.replace(/\/+$/, ""),
  };
}

export function composeArea(core: Core) {
  const service = createSolanaStakeService(solanaReads(core));
  return { routes: [solanaStakeArea({ service })] };
}
