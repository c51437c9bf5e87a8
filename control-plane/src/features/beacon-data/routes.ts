import { ErrorBodies, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import { EthereumNetworkResponse, RatesQuery, RatesResponse } from "./rates-schemas.ts";
import {
  DateQuery,
  DateRewardsResponse,
  EpochQuery,
  EpochRewardsResponse,
  ListQuery,
  OverviewResponse,
  RegisterRequest,
  RegisterResponse,
  TransactionsQuery,
  TransactionsResponse,
  ValidatorListResponse,
} from "./schemas.ts";
import type { BeaconDataService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/** Beacon-chain data area (Ethereum): validators, rewards and transactions from our own indexer; header `api-key`. */
export function beaconDataArea(deps: { service: BeaconDataService }): Area {
  const { service } = deps;
  return {
    tag: "Beacon data (Ethereum)",
    present: presentStandard,
    routes: [
      // Not in the spec: how an organisation adds validators it did not provision here (README).
      route({
        method: "post",
        path: "/api/validators/register",
        summary:
          "Track validators by pubkey (idempotent); the indexer follows them from its next epoch and backfills the last indexed ones",
        security: "api-key",
        body: RegisterRequest,
        upstream: true,
        responses: {
          200: { description: "the pubkeys now tracked", body: RegisterResponse },
          409: error(
            "BEACON_REGISTERED_PER_ORGANISATION pubkeys registered already (REGISTRATION_LIMIT_REACHED)",
          ),
          422: error(
            "no validator and no pending deposit for a pubkey on the beacon chain (VALIDATOR_UNKNOWN)",
          ),
          503: error("registered, but the worker has not counted the pubkeys yet (Retry-After)"),
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await service.register(auth, body.pubkeys),
        }),
      }),
      route({
        method: "get",
        path: "/api/validators/list",
        summary: "The organisation's validators with beacon status, balance and lifecycle history",
        security: "api-key",
        query: ListQuery,
        indexed: true,
        responses: { 200: { description: "a page of validators", body: ValidatorListResponse } },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.list(auth.organisationId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/rewards/overview",
        summary: "Totals and APY (7, 30, 365 days) of the organisation's validators",
        security: "api-key",
        indexed: true,
        responses: { 200: { description: "overview", body: OverviewResponse } },
        handler: async ({ auth }) => ({ status: 200, body: await service.overview(auth.organisationId) }),
      }),
      route({
        method: "get",
        path: "/api/rewards/epoch",
        summary: "Per-epoch CL and EL rewards (Gwei), paged by epoch",
        security: "api-key",
        query: EpochQuery,
        indexed: true,
        responses: { 200: { description: "epoch rewards", body: EpochRewardsResponse } },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.epochs(auth.organisationId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/rewards/date",
        summary: "CL and EL rewards (Gwei) per UTC day, 7 or 30 days, paged by interval",
        security: "api-key",
        query: DateQuery,
        indexed: true,
        responses: { 200: { description: "date rewards", body: DateRewardsResponse } },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.dates(auth.organisationId, query),
        }),
      }),
      // Not in the spec (docs/spec.md, "Rates and network figures"): what a console draws beside rewards.
      route({
        method: "get",
        path: "/api/rates",
        summary:
          "Daily 7- and 30-day reward rates (CL, EL, total; percent a year) of the organisation, the network and optionally one validator",
        security: "api-key",
        query: RatesQuery,
        indexed: true,
        responses: {
          200: { description: "one item per UTC day of [from, to]", body: RatesResponse },
          404: error("the organisation has no such validator (VALIDATOR_NOT_FOUND)"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.rates(auth.organisationId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/network/ethereum",
        summary:
          "Active validators and stake, entry and exit queues with their waits (Electra churn), EIP-7002/7251 request fees",
        security: "api-key",
        indexed: true,
        upstream: true,
        responses: {
          200: { description: "the network's figures at the head", body: EthereumNetworkResponse },
        },
        handler: async () => ({ status: 200, body: await service.ethereumNetwork() }),
      }),
      route({
        method: "get",
        path: "/api/transactions",
        summary: "Deposits, withdrawals and EL requests of the organisation's validators, newest first",
        security: "api-key",
        query: TransactionsQuery,
        indexed: true,
        responses: { 200: { description: "a page of transactions", body: TransactionsResponse } },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.transactions(auth.organisationId, query),
        }),
      }),
    ],
  };
}
