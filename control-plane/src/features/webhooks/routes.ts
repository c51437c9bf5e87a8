import type { RequestHandler } from "express";
import { ErrorBodies, presentMessage, presentStandard } from "../../errors.ts";
import type { Security } from "../../http/auth.ts";
import { type Area, errorResponses, type Route, route } from "../../http/route.ts";
import type { Owner } from "../../platform/event-types.ts";
import {
  CreateEndpointRequest,
  CreateEndpointResponse,
  DeliveriesQuery,
  DeliveriesResponse,
  DeliveryIdParams,
  EndpointIdParams,
  EndpointListResponse,
  EndpointResponse,
  ReplayResponse,
  RotateSecretResponse,
  TestEventResponse,
  UpdateEndpointRequest,
} from "./schemas.ts";
import type { WebhooksService } from "./service.ts";

/** The paths of one route group: the staking API's resource style, the gateway account API's verb style. */
interface Paths {
  create: string;
  list: string;
  get: string;
  update: { method: "post"; path: string };
  remove: { method: "post" | "delete"; path: string };
  rotate: string;
  test: string;
  deliveries: string;
  replay: string;
}

/**
 * The endpoint-management routes, declared once for both kinds of owner (docs/spec.md "Webhooks"): the
 * two groups differ in paths, security and error body, never in behaviour.
 */
function webhookRoutes<S extends "api-key" | "bearer">(opts: {
  security: S;
  paths: Paths;
  ownerOf: (auth: S extends "api-key" ? { organisationId: string } : { userId: string }) => Owner;
  error: ReturnType<typeof errorResponses>;
  service: WebhooksService;
}): Route[] {
  const { security, paths: p, service, error } = opts;
  const owner = (auth: unknown) => opts.ownerOf(auth as never);
  const notFound = { 404: error("no such webhook endpoint of this account (WEBHOOK_ENDPOINT_NOT_FOUND)") };
  const urlRefused = error(
    "a field failed validation, or the URL is refused (WEBHOOK_URL_REFUSED: not https, credentials, or only loopback/private/link-local/reserved addresses)",
  );
  return [
    route({
      method: "post",
      path: p.create,
      summary: "Create a webhook endpoint (its signing secret is shown once)",
      security: security as Security,
      body: CreateEndpointRequest,
      responses: {
        201: { description: "created, with its whsec_ secret", body: CreateEndpointResponse },
        400: urlRefused,
        409: error(
          "the account holds WEBHOOK_ENDPOINTS_PER_OWNER endpoints (WEBHOOK_ENDPOINT_LIMIT_REACHED)",
        ),
      },
      handler: async ({ auth, body }) => ({ status: 201, body: await service.create(owner(auth), body) }),
    }),
    route({
      method: "get",
      path: p.list,
      summary: "The account's webhook endpoints, newest first",
      security: security as Security,
      responses: { 200: { description: "the endpoints", body: EndpointListResponse } },
      handler: async ({ auth }) => ({ status: 200, body: await service.list(owner(auth)) }),
    }),
    route({
      method: "get",
      path: p.get,
      summary: "One webhook endpoint",
      security: security as Security,
      params: EndpointIdParams,
      responses: { 200: { description: "the endpoint", body: EndpointResponse }, ...notFound },
      handler: async ({ auth, params }) => ({ status: 200, body: await service.get(owner(auth), params.id) }),
    }),
    route({
      method: p.update.method,
      path: p.update.path,
      summary: "Change a webhook endpoint's URL, description, event types or enabled flag",
      security: security as Security,
      params: EndpointIdParams,
      body: UpdateEndpointRequest,
      responses: {
        200: { description: "the endpoint", body: EndpointResponse },
        400: urlRefused,
        ...notFound,
      },
      handler: async ({ auth, params, body }) => ({
        status: 200,
        body: await service.update(owner(auth), params.id, body),
      }),
    }),
    route({
      method: p.remove.method,
      path: p.remove.path,
      summary: "Delete a webhook endpoint and its delivery records",
      security: security as Security,
      params: EndpointIdParams,
      responses: { 204: { description: "deleted" }, ...notFound },
      handler: async ({ auth, params }) => {
        await service.remove(owner(auth), params.id);
        return { status: 204 };
      },
    }),
    route({
      method: "post",
      path: p.rotate,
      summary: "Rotate an endpoint's signing secret (the old one signs beside it for a while)",
      security: security as Security,
      params: EndpointIdParams,
      responses: {
        200: { description: "the new secret, shown once", body: RotateSecretResponse },
        ...notFound,
      },
      handler: async ({ auth, params }) => ({
        status: 200,
        body: await service.rotateSecret(owner(auth), params.id),
      }),
    }),
    route({
      method: "post",
      path: p.test,
      summary: "Send a webhook.test event to this endpoint",
      security: security as Security,
      params: EndpointIdParams,
      responses: {
        202: { description: "queued for delivery", body: TestEventResponse },
        ...notFound,
        409: error("the endpoint is disabled (WEBHOOK_ENDPOINT_DISABLED)"),
      },
      handler: async ({ auth, params }) => ({
        status: 202,
        body: await service.sendTest(owner(auth), params.id),
      }),
    }),
    route({
      method: "get",
      path: p.deliveries,
      summary: "An endpoint's deliveries, newest first: status, attempts, response code, latency",
      security: security as Security,
      params: EndpointIdParams,
      query: DeliveriesQuery,
      responses: { 200: { description: "a page of deliveries", body: DeliveriesResponse }, ...notFound },
      handler: async ({ auth, params, query }) => ({
        status: 200,
        body: await service.deliveries(owner(auth), params.id, query),
      }),
    }),
    route({
      method: "post",
      path: p.replay,
      summary: "Deliver an event again (same webhook-id, a new delivery record)",
      security: security as Security,
      params: DeliveryIdParams,
      responses: {
        202: { description: "queued for delivery", body: ReplayResponse },
        404: error("no such delivery of this account (WEBHOOK_DELIVERY_NOT_FOUND)"),
      },
      handler: async ({ auth, params }) => ({
        status: 202,
        body: await service.replay(owner(auth), params.id),
      }),
    }),
  ];
}

/** Webhooks of organisations: the staking API's key (header `api-key`), its error body. */
export function webhooksArea(deps: { service: WebhooksService }): Area {
  return {
    tag: "Webhooks (staking)",
    present: presentStandard,
    routes: webhookRoutes({
      security: "api-key",
      ownerOf: (auth) => ({ kind: "organisation", id: auth.organisationId }),
      error: errorResponses(ErrorBodies.standard),
      service: deps.service,
      paths: {
        create: "/api/webhooks/endpoints",
        list: "/api/webhooks/endpoints",
        get: "/api/webhooks/endpoints/{id}",
        update: { method: "post", path: "/api/webhooks/endpoints/{id}" },
        remove: { method: "delete", path: "/api/webhooks/endpoints/{id}" },
        rotate: "/api/webhooks/endpoints/{id}/rotate-secret",
        test: "/api/webhooks/endpoints/{id}/test",
        deliveries: "/api/webhooks/endpoints/{id}/deliveries",
        replay: "/api/webhooks/deliveries/{id}/replay",
      },
    }),
  };
}

/** Webhooks of gateway users: the gateway account API's bearer token, paths, limiter and error body. */
export function gatewayWebhooksArea(deps: { service: WebhooksService; limit: RequestHandler }): Area {
  return {
    tag: "Webhooks (gateway account)",
    present: presentMessage,
    use: [deps.limit],
    rateLimited: true,
    routes: webhookRoutes({
      security: "bearer",
      ownerOf: (auth) => ({ kind: "gateway_user", id: auth.userId }),
      error: errorResponses(ErrorBodies.message),
      service: deps.service,
      paths: {
        create: "/api/webhook/create",
        list: "/api/webhook/list",
        get: "/api/webhook/{id}",
        update: { method: "post", path: "/api/webhook/{id}/update" },
        remove: { method: "post", path: "/api/webhook/{id}/delete" },
        rotate: "/api/webhook/{id}/rotate-secret",
        test: "/api/webhook/{id}/test",
        deliveries: "/api/webhook/{id}/deliveries",
        replay: "/api/webhook/delivery/{id}/replay",
      },
    }),
  };
}
