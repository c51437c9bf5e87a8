import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import {
  BalanceRequest,
  BalanceResponse,
  DeactivateRequest,
  DeactivateResponse,
  HistoryQuery,
  HistoryResponse,
  normaliseBody,
  RewardsQuery,
  RewardsResponse,
  StakeRequest,
  StakeResponse,
  WithdrawRequest,
  WithdrawResponse,
} from "./schemas.ts";
import type { SolanaStakeService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);
/** Every route reads accounts by address: a vote or stake account that does not exist is a 404. */
const notFound = { 404: error("no such vote or stake account") };

/**
 * Stake-account area (Solana). Header `x-api-key` or `api-key`; body keys in either casing
 * (validatorPubKey / validatorPubkey, …); each path also answers under the samples' `/v1` prefix.
 */
export function solanaStakeArea(deps: { service: SolanaStakeService }): Area {
  const { service } = deps;
  return {
    tag: "Stake accounts (Solana)",
    present: presentStandard,
    use: [normaliseBody],
    routes: [
      route({
        method: "post",
        path: "/api/v1/stake",
        aliases: ["/v1/stake"],
        summary: "Unsigned stake transaction (a new stake account, delegated)",
        security: "stake-key",
        body: StakeRequest,
        upstream: true,
        responses: {
          200: { description: "the unsigned transaction", body: StakeResponse },
          ...notFound,
          409: error("no unused seed-derived stake address was found"),
        },
        handler: async ({ body, auth }) => ({
          status: 200,
          body: { success: true, data: await service.stake(body, auth) },
        }),
      }),
      route({
        method: "post",
        path: "/api/v1/deactivate",
        aliases: ["/v1/deactivate"],
        summary: "Unsigned deactivate transaction",
        security: "stake-key",
        body: DeactivateRequest,
        upstream: true,
        responses: {
          200: { description: "the unsigned transaction", body: DeactivateResponse },
          ...notFound,
        },
        handler: async ({ body, auth }) => ({
          status: 200,
          body: { success: true, data: await service.deactivate(body, auth) },
        }),
      }),
      route({
        method: "post",
        path: "/api/v1/withdraw",
        aliases: ["/v1/withdraw"],
        summary: "Unsigned withdraw transaction (fully deactivated stake account)",
        security: "stake-key",
        body: WithdrawRequest,
        upstream: true,
        responses: { 200: { description: "the unsigned transaction", body: WithdrawResponse }, ...notFound },
        handler: async ({ body, auth }) => ({
          status: 200,
          body: { success: true, data: await service.withdraw(body, auth) },
        }),
      }),
      route({
        method: "post",
        path: "/api/v1/balance",
        aliases: ["/v1/balance"],
        summary: "Balance of a wallet or of stake accounts (exactly one selector)",
        security: "stake-key",
        body: BalanceRequest,
        upstream: true,
        responses: { 200: { description: "balances", body: BalanceResponse }, ...notFound },
        handler: async ({ body, auth }) => ({
          status: 200,
          body: { success: true, data: await service.balance(body, auth) },
        }),
      }),
      route({
        method: "get",
        path: "/api/v1/rewards",
        aliases: ["/v1/rewards"],
        summary: "Rewards per epoch, week or month (inflation + MEV)",
        security: "stake-key",
        query: RewardsQuery,
        upstream: true,
        // Reads the rewards cache: 503 CHAIN_MISMATCH while the node serves another cluster.
        indexed: true,
        responses: { 200: { description: "rewards", body: RewardsResponse }, ...notFound },
        handler: async ({ query, auth }) => ({ status: 200, body: await service.rewards(query, auth) }),
      }),
      route({
        method: "get",
        path: "/api/v1/history/events",
        aliases: ["/v1/history/events"],
        summary: "Stake history events, paged",
        security: "stake-key",
        query: HistoryQuery,
        upstream: true,
        // Reads the rewards cache: 503 CHAIN_MISMATCH while the node serves another cluster.
        indexed: true,
        responses: { 200: { description: "history", body: HistoryResponse }, ...notFound },
        handler: async ({ query, auth }) => ({ status: 200, body: await service.history(query, auth) }),
      }),
    ],
  };
}
