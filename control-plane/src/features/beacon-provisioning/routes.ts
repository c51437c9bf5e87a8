import type { RequestHandler } from "express";
import { Router } from "express";
import { parseOrThrow } from "../../errors.ts";
import { assertInScope, requireAuth } from "../../http/api-key-auth.ts";
import { hexOf, withdrawalCredentials } from "./builder.ts";
import { depositDetailItem, pageEnvelope, paging, provisionHeader, validatorItem } from "./present.ts";
import type { ProvisioningRepo } from "./repo.ts";
import { AddStakeRequest, IdempotencyKey, ListQuery, ProvisionQuery, ProvisionRequest } from "./schemas.ts";
import type { ProvisioningService } from "./service.ts";

/** Beacon-chain provisioning area, mounted at /api. Auth is per route: other areas share the /api prefix. */
export function createBeaconProvisioningRouter(deps: {
  service: ProvisioningService;
  repo: ProvisioningRepo;
  auth: RequestHandler;
}): Router {
  const router = Router();
  const { service, repo, auth } = deps;

  router.post("/provision", auth, async (req, res) => {
    const auth = requireAuth(req);
    const header = req.headers["idempotency-key"];
    const key = header === undefined ? null : parseOrThrow(IdempotencyKey, header, "Idempotency-Key");
    const { attributes } = parseOrThrow(ProvisionRequest, req.body);
    assertInScope(auth, "ethereum", attributes.withdrawalAddress, "delegator");
    res.json({ result: await service.provision(auth.organisationId, attributes, key) });
  });

  router.get("/validators", auth, async (req, res) => {
    const { organisationId } = requireAuth(req);
    const q = parseOrThrow(ProvisionQuery, req.query, "query");
    const p = await service.ownProvision(organisationId, q.provisionId);
    const a = p.attributes;
    const page = paging(q);
    const done = p.status === "CREATED";
    const rows = done ? await repo.listValidators(p.id, page) : [];
    const total = done ? await repo.countValidators(p.id) : 0;
    res.json({
      ...provisionHeader(p, hexOf(withdrawalCredentials(a.withdrawalAddress, a.compounding))),
      depositInput: a.batch && done ? p.batchDepositInput : null,
      to: a.batch && done ? p.batchTo : null,
      value: a.batch && done ? p.batchValue : null,
      withdrawalAddress: a.withdrawalAddress,
      provisionStatus: p.status,
      ...(p.status === "FAILED" ? { reason: p.reason } : {}),
      results: rows.map((v) => validatorItem(v, a.batch)),
      ...pageEnvelope(page, total),
    });
  });

  router.get("/deposit-details", auth, async (req, res) => {
    const { organisationId } = requireAuth(req);
    const q = parseOrThrow(ProvisionQuery, req.query, "query");
    const p = await service.ownProvision(organisationId, q.provisionId);
    const a = p.attributes;
    const page = paging(q);
    const done = p.status === "CREATED";
    const rows = done ? await repo.listValidators(p.id, page) : [];
    res.json({
      ...provisionHeader(p, hexOf(withdrawalCredentials(a.withdrawalAddress, a.compounding))),
      controllerAddress: a.controllerAddress,
      feeRecipient: a.feeRecipient,
      results: rows.map(depositDetailItem),
      ...pageEnvelope(page, done ? await repo.countValidators(p.id) : 0),
    });
  });

  router.post("/validators/add-stake", auth, async (req, res) => {
    const auth = requireAuth(req);
    const { pubKey, amount } = parseOrThrow(AddStakeRequest, req.body);
    assertInScope(auth, "ethereum", pubKey, "validator");
    res.json(await service.addStake(auth.organisationId, pubKey, amount));
  });

  // Not shown in the spec: every validator of the organisation with its provision id (README).
  router.get("/validators/provisions", auth, async (req, res) => {
    const { organisationId } = requireAuth(req);
    const page = paging(parseOrThrow(ListQuery, req.query, "query"));
    const { rows, total } = await repo.listOrganisationValidators(organisationId, page);
    res.json({
      results: rows.map((v) => ({
        validatorAddress: v.pubkey,
        validatorIndex: v.validatorIndex,
        provisionId: v.provisionId,
        status: v.status,
        created: v.createdAt.toISOString(),
      })),
      ...pageEnvelope(page, total),
    });
  });

  // Not shown in the spec: validator counts by lifecycle status (README).
  router.get("/validators/count", auth, async (req, res) => {
    const { organisationId } = requireAuth(req);
    res.json(await service.countByStatus(organisationId));
  });

  return router;
}
