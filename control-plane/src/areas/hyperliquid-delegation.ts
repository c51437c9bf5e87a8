import type { Core } from "../core.ts";
import { createHyperliquidClient } from "../features/hyperliquid-delegation/client.ts";
import { createHyperliquidRepo } from "../features/hyperliquid-delegation/repo.ts";
import { hyperliquidArea } from "../features/hyperliquid-delegation/routes.ts";
import { createHyperliquidService } from "../features/hyperliquid-delegation/service.ts";
import { createUpstream } from "../http/upstream.ts";

export function composeArea({ config, redis, keys }: Core) {
  const service = createHyperliquidService({
    client: createHyperliquidClient({
      baseUrl: config.hyperliquid.apiUrl,
      upstream: createUpstream({
        name: "Hyperliquid API",
        timeoutMs: config.hyperliquid.timeoutMs,
        maxBytes: config.nodeResponseMaxBytes,
      }),
    }),
    repo: createHyperliquidRepo({ redis, keys }),
    network: config.network,
    validator: config.hyperliquid.validatorAddress,
  });
  return { routes: [hyperliquidArea({ service })] };
}
