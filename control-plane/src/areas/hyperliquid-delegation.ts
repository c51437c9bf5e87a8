import type { Core } from "../core.ts";
import { createHyperliquidClient } from "../features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "../features/hyperliquid-delegation/repo.ts";
import { createHyperliquidRewards } from "../features/hyperliquid-delegation/rewards.ts";
import { hyperliquidArea } from "../features/hyperliquid-delegation/routes.ts";
import { createHyperliquidService } from "../features/hyperliquid-delegation/service.ts";
import { createUpstream } from "../http/upstream.ts";

export function composeArea({ config, redis, keys }: Core) {
  const client = createHyperliquidClient({
    baseUrl: config.hyperliquid.apiUrl,
    upstream: createUpstream({
      name: "Hyperliquid API",
      timeoutMs: config.hyperliquid.timeoutMs,
      maxBytes: config.nodeResponseMaxBytes,
    }),
  });
  const rewards = createHyperliquidRewards({ client });
  const service = createHyperliquidService({
    client,
    repo: createHyperliquidRepo({ redis, keys }),
    network: config.network,
    validator: config.hyperliquid.validatorAddress,
  });
  return { routes: [hyperliquidArea({ service, rewards })], rewards };
}
