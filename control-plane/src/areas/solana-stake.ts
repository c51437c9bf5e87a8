import type { Core } from "../core.ts";
import { createSolanaRpc } from "../features/solana-stake/client.ts";
import { createSolanaRewardsRepo } from "../features/solana-stake/repo.ts";
import { solanaStakeArea } from "../features/solana-stake/routes.ts";
import { createSolanaStakeService } from "../features/solana-stake/service.ts";
import { createUpstream } from "../http/upstream.ts";

export function composeArea({ config, db }: Core) {
  const service = createSolanaStakeService({
    rpc: createSolanaRpc({
      url: config.solana.rpcUrl,
      upstream: createUpstream({
        name: "Solana node",
        timeoutMs: config.solana.timeoutMs,
        maxBytes: config.nodeResponseMaxBytes,
      }),
    }),
    repo: createSolanaRewardsRepo(db),
    mevApiUrl: config.solana.mevApiUrl.replace(/\/+$/, ""),
  });
  return { routes: [solanaStakeArea({ service })] };
}
