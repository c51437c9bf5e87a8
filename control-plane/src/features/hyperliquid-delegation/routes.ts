import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, type Route, route } from "../../http/route.ts";
import type { HyperliquidRewards } from "./rewards.ts";
import {
  BalanceQuery,
  BalanceResponse,
  BroadcastRequest,
  BroadcastResponse,
  HistoryResponse,
  OperationRequest,
  RewardsQuery,
  RewardsResponse,
  UnsignedResponse,
} from "./schemas.ts";
import type { HyperliquidService, Operation } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/** Delegation area (Hyperliquid, HYPE); header `api-key` on every route. */
export function hyperliquidArea(deps: { service: HyperliquidService; rewards: HyperliquidRewards }): Area {
  const { service, rewards } = deps;
  const unsigned = (op: Operation, path: string, summary: string): Route =>
    route({
      method: "post",
      path,
      summary,
      security: "api-key",
      body: OperationRequest,
      responses: { 200: { description: "the unsigned EIP-712 action", body: UnsignedResponse } },
      handler: async ({ body, auth }) => ({
        status: 200,
        body: { result: await service.prepare(op, body, auth) },
      }),
    });

  return {
    tag: "Delegation (Hyperliquid)",
    present: presentStandard,
    routes: [
      unsigned("delegate", "/api/v1/staking/delegate", "Unsigned tokenDelegate action (delegate)"),
      unsigned("undelegate", "/api/v1/staking/undelegate", "Unsigned tokenDelegate action (undelegate)"),
      unsigned("withdraw", "/api/v1/staking/withdraw", "Unsigned cWithdraw action (staking → spot)"),
      unsigned("transfer", "/api/v1/staking/transfer", "Unsigned cDeposit action (spot → staking)"),
      route({
        method: "get",
        path: "/api/v1/staking/balance",
        summary: "Delegator balance from the Hyperliquid info API",
        security: "api-key",
        query: BalanceQuery,
        upstream: true,
        responses: { 200: { description: "the delegator's balances", body: BalanceResponse } },
        handler: async ({ query, auth }) => ({
          status: 200,
          body: { result: await service.balance(query.delegatorAddress, auth) },
        }),
      }),
      route({
        method: "get",
        path: "/api/v1/staking/rewards",
        summary: "Delegator rewards from the Hyperliquid info API (delegatorRewards), exact",
        security: "api-key",
        query: RewardsQuery,
        upstream: true,
        responses: { 200: { description: "the daily distributions, oldest first", body: RewardsResponse } },
        handler: async ({ query, auth }) => ({
          status: 200,
          body: {
            result: await rewards.rewards(query.delegatorAddress, { from: query.from, to: query.to }, auth),
          },
        }),
      }),
      route({
        method: "get",
        path: "/api/v1/staking/history",
        summary: "Delegator history from the Hyperliquid info API (delegatorHistory)",
        security: "api-key",
        query: BalanceQuery,
        upstream: true,
        responses: {
          200: { description: "delegations, deposits and withdrawals, newest first", body: HistoryResponse },
        },
        handler: async ({ query, auth }) => ({
          status: 200,
          body: { result: await rewards.history(query.delegatorAddress, auth) },
        }),
      }),
      route({
        method: "post",
        path: "/api/v1/staking/broadcast",
        summary: "Relay a signed action to Hyperliquid",
        security: "api-key",
        body: BroadcastRequest,
        upstream: true,
        responses: {
          200: { description: "relayed", body: BroadcastResponse },
          400: error("malformed, invalid or wrongly signed action"),
          409: error("nonce already broadcast"),
          422: error("Hyperliquid refused the action"),
        },
        handler: async ({ body, auth }) => ({
          status: 200,
          body: { result: await service.broadcast(body.signedTransaction, auth) },
        }),
      }),
    ],
  };
}
