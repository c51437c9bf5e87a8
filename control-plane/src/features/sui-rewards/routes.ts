import type { z } from "zod";
import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, type Route, route } from "../../http/route.ts";
import { DailyRewardsResponse, RewardsPageQuery, RewardsRequest, RewardsResponse } from "./schemas.ts";
import type { SuiRewardsService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

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
      responses: {
        200: { description: "one entry per epoch", body },
        400: error("validation error (address, dates, range, page or limit)"),
        401: error("missing or invalid API key"),
        403: error("address outside the key's scope"),
        502: error("Sui node unreachable or answered an error"),
        503: error("the operator's pools are not indexed yet"),
        504: error("Sui node timed out"),
      },
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
