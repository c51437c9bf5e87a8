import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { AprResponse, PendingRewardsRequest, PendingRewardsResponse } from "./schemas.ts";
import type { PolygonRewardsService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/** Chain B rewards (Polygon PoS, staked on Ethereum L1); header `x-api-key`. */
export function polygonRewardsArea(deps: { service: PolygonRewardsService }): Area {
  const { service } = deps;
  return {
    tag: "Chain B rewards (Polygon)",
    present: presentStandard,
    routes: [
      route({
        method: "post",
        path: "/api/pending-rewards",
        summary: "Rewards a Polygon delegator has not claimed yet from the operator's ValidatorShare (POL)",
        security: "x-api-key",
        body: PendingRewardsRequest,
        upstream: true,
        responses: {
          200: { description: "pending rewards in POL, and exactly in wei", body: PendingRewardsResponse },
          503: error("the configured validator has no ValidatorShare (POLYGON_VALIDATOR_NOT_FOUND)"),
        },
        handler: async ({ body, auth }) => ({ status: 200, body: await service.pendingRewards(body, auth) }),
      }),
      route({
        method: "get",
        path: "/api/apr",
        summary: "Delegators' APR of the operator's Polygon validator over 1, 7 and 30 days (percent)",
        security: "x-api-key",
        upstream: true,
        indexed: true,
        responses: {
          200: { description: "APR per window; null where the history is too short", body: AprResponse },
          503: error(
            "no snapshot stored yet (NOT_INDEXED_YET, Retry-After), or the configured validator has no ValidatorShare",
          ),
        },
        handler: async () => ({ status: 200, body: await service.apr() }),
      }),
    ],
  };
}
