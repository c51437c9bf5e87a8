import type { z } from "zod";
import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, type Route, route } from "../../http/route.ts";
import { DailyRewardsResponse, RewardsPageQuery, RewardsRequest, RewardsResponse } from "./schemas.ts";
import type { SuiRewardsService } from "./service.ts";

const _error = errorResponses(ErrorBodies.standard);

/** Chain C rewards (Sui): per-epoch rewards of a delegator in the operator's pools; header `x-api-key`. */
export function suiRewardsArea(deps: { service: SuiRewardsService }): Area {
  const { service } = deps;
  // The two endpoints answer the same rows; they differ in path and envelope only.
  const rewards = (
    path: string,
    summary: string,
    body: z.ZodType,
    wrap: (data: DailyRewardsResponse) => unknown,
  ): Route =>
    route({
      method: "post",
      path,
      summary,
      security: "x-api-key",
      query: RewardsPageQuery,
      body: RewardsRequest,
      upstream: true,
      indexed: true,
      responses: { 200: { description: "one entry per epoch", body } },
      handler: async ({ query, body, auth }) => ({
        status: 200,
        body: wrap(await service.dailyRewards({ ...body, ...query }, auth)),
      }),
    });

  return {
    tag: "Chain C rewards (Sui)",
    present: presentStandard,
    routes: [
      rewards(
        "/sui/rewards/daily",
        "Per-epoch rewards of a Sui delegator (MIST), paginated (page 1, limit 10, max 100)",
        DailyRewardsResponse,
        (data) => data,
      ),
      rewards(
        "/api/rewards",
        "Per-epoch rewards of a Sui delegator (MIST), in the v1 envelope",
        RewardsResponse,
        (data) => ({ success: true, data }),
      ),
    ],
  };
}
