import { ErrorBodies, parseOrThrow, presentStandard } from "../../errors.ts";
import { type Area, errorResponses, route } from "../../http/route.ts";
import type { ExitService } from "./exits.ts";
import {
  AddStakeRequest,
  AddStakeResponse,
  ConsolidationsRequest,
  ConsolidationsResponse,
  CountResponse,
  DepositDetailsResponse,
  ExitMessagesRequest,
  ExitMessagesResponse,
  ExitRequest,
  ExitResponse,
  IdempotencyKey,
  ListQuery,
  OrganisationValidatorsResponse,
  ProvisionQuery,
  ProvisionRequest,
  ProvisionResponse,
  ValidatorsResponse,
  WithdrawalRequestsRequest,
  WithdrawalRequestsResponse,
} from "./schemas.ts";
import type { ProvisioningService } from "./service.ts";

const error = errorResponses(ErrorBodies.standard);

/** Beacon-chain provisioning area (Ethereum): validator keys, deposit data, add-stake; header `api-key`. */
export function beaconProvisioningArea(deps: { service: ProvisioningService; exits: ExitService }): Area {
  const { service, exits } = deps;
  const notActive = error(
    "a validator is not active_ongoing, has not been active for SHARD_COMMITTEE_PERIOD epochs (VALIDATOR_NOT_EXITABLE_YET) or has partial withdrawals queued (PENDING_PARTIAL_WITHDRAWALS)",
  );
  return {
    tag: "Beacon provisioning (Ethereum)",
    present: presentStandard,
    routes: [
      route({
        method: "post",
        path: "/api/provision",
        summary: "Provision validators (runs as a background job; Idempotency-Key honoured)",
        security: "api-key",
        body: ProvisionRequest,
        responses: {
          200: { description: "accepted", body: ProvisionResponse },
          409: error(
            "same Idempotency-Key, other body; or ETH_PROVISION_QUOTA validators not yet deposited (PROVISION_QUOTA_EXCEEDED)",
          ),
        },
        handler: async ({ auth, body, req }) => {
          const header = req.headers["idempotency-key"];
          const key = header === undefined ? null : parseOrThrow(IdempotencyKey, header, "Idempotency-Key");
          return { status: 200, body: { result: await service.provision(auth, body.attributes, key) } };
        },
      }),
      route({
        method: "get",
        path: "/api/validators",
        summary: "Validators of a provision (empty until the provision job is done)",
        security: "api-key",
        query: ProvisionQuery,
        responses: {
          200: { description: "validator objects", body: ValidatorsResponse },
          404: error("no such provision of this organisation"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.validators(auth.organisationId, query),
        }),
      }),
      route({
        method: "get",
        path: "/api/deposit-details",
        summary: "Deposit data and calldata of a provision",
        security: "api-key",
        query: ProvisionQuery,
        responses: {
          200: { description: "deposit details", body: DepositDetailsResponse },
          404: error("no such provision of this organisation"),
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.depositDetails(auth.organisationId, query),
        }),
      }),
      route({
        method: "post",
        path: "/api/validators/add-stake",
        summary: "Top-up deposit for an active 0x02 validator",
        security: "api-key",
        body: AddStakeRequest,
        upstream: true,
        responses: {
          200: { description: "the signed top-up deposit", body: AddStakeResponse },
          400: error("a field failed validation, or the validator is not compounding or would pass the cap"),
          404: error("no such validator of this organisation"),
          409: error("the validator is not active_ongoing on the beacon chain"),
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await service.addStake(auth, body.pubKey, body.amount),
        }),
      }),
      // Our additions (docs/spec.md, "Exits, withdrawals and consolidations").
      route({
        method: "post",
        path: "/api/validators/exit",
        summary: "Exit validators: the operator signs each voluntary exit and sends it to the beacon node",
        security: "api-key",
        body: ExitRequest,
        upstream: true,
        rateLimited: true,
        responses: {
          200: {
            description: "per validator: EXIT_SENT, or EXIT_REQUESTED with the node's reason",
            body: ExitResponse,
          },
          404: error("a validator is not one of this organisation's"),
          409: notActive,
        },
        handler: async ({ auth, body }) => ({ status: 200, body: await exits.exit(auth, body.pubkeys) }),
      }),
      route({
        method: "post",
        path: "/api/validators/exit-messages",
        summary: "Pre-signed voluntary exits, encrypted to the client's public key (JWE, ECDH-ES)",
        security: "api-key",
        body: ExitMessagesRequest,
        upstream: true,
        rateLimited: true,
        responses: {
          200: { description: "the encrypted exits and the hand-out's audit id", body: ExitMessagesResponse },
          404: error("a validator is not one of this organisation's"),
          409: error("a validator has no index yet or is already exiting (VALIDATOR_NOT_ACTIVE)"),
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await exits.exitMessages(auth, body.pubkeys, body.recipientKey),
        }),
      }),
      route({
        method: "post",
        path: "/api/validators/withdrawal-requests",
        summary:
          "EIP-7002 full exits and partial withdrawals as unsigned transactions for the withdrawal address",
        security: "api-key",
        body: WithdrawalRequestsRequest,
        upstream: true,
        responses: {
          200: { description: "one unsigned transaction per request", body: WithdrawalRequestsResponse },
          400: error(
            "a field failed validation; a partial withdrawal of a 0x01 validator (VALIDATOR_NOT_COMPOUNDING) or below 32 ETH (PARTIAL_WITHDRAWAL_TOO_LARGE)",
          ),
          404: error("a validator is not one of this organisation's"),
          409: notActive,
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await exits.withdrawalRequests(auth, body.requests),
        }),
      }),
      route({
        method: "post",
        path: "/api/validators/consolidations",
        summary: "EIP-7251 consolidations and switches to compounding as unsigned transactions",
        security: "api-key",
        body: ConsolidationsRequest,
        upstream: true,
        responses: {
          200: { description: "one unsigned transaction per request", body: ConsolidationsResponse },
          400: error(
            "a field failed validation; a target without 0x02 credentials (TARGET_NOT_COMPOUNDING) or a switch of a 0x02 validator (ALREADY_COMPOUNDING)",
          ),
          404: error("a source or target is not one of this organisation's"),
          409: notActive,
        },
        handler: async ({ auth, body }) => ({
          status: 200,
          body: await exits.consolidations(auth, body.requests),
        }),
      }),
      // Not shown in the spec: every validator of the organisation with its provision id (README).
      route({
        method: "get",
        path: "/api/validators/provisions",
        summary: "The organisation's validators with their provision ids",
        security: "api-key",
        query: ListQuery,
        responses: {
          200: { description: "a page of validators", body: OrganisationValidatorsResponse },
        },
        handler: async ({ auth, query }) => ({
          status: 200,
          body: await service.organisationValidators(auth.organisationId, query),
        }),
      }),
      // Not shown in the spec: validator counts by lifecycle status (README).
      route({
        method: "get",
        path: "/api/validators/count",
        summary: "Validator counts by lifecycle status",
        security: "api-key",
        responses: { 200: { description: "counts by status", body: CountResponse } },
        handler: async ({ auth }) => ({
          status: 200,
          body: await service.countByStatus(auth.organisationId),
        }),
      }),
    ],
  };
}
