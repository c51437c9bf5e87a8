import { Router } from "express";
import { parseOrThrow } from "../../errors.ts";
import { readBasicAuth } from "../../http/basic-auth.ts";
import { CreateKeyRequest, KeyIdParams, SignupRequest } from "./schemas.ts";
import type { AccountService } from "./service.ts";

/** Account area v2, mounted at /user. */
export function createAccountV2Router(deps: { accounts: AccountService }): Router {
  const router = Router();
  const { accounts } = deps;

  router.post("/signup", async (req, res) => {
    const input = parseOrThrow(SignupRequest, req.body);
    await accounts.signup(input, req.ip ?? "unknown");
    res.status(202).json({ message: "Sign-up received. The organisation awaits approval by the operator." });
  });

  router.post("/api-keys", async (req, res) => {
    const org = await accounts.authenticate(readBasicAuth(req), req.ip ?? "unknown");
    const { label } = parseOrThrow(CreateKeyRequest, req.body);
    res.status(201).json(await accounts.createKey(org.id, label));
  });

  // 201 on a read is what the spec gives and what clients of the original API expect (see README).
  router.get("/api-keys", async (req, res) => {
    const org = await accounts.authenticate(readBasicAuth(req), req.ip ?? "unknown");
    res.status(201).json({ keys: await accounts.listKeys(org.id) });
  });

  router.delete("/api-keys/:keyId", async (req, res) => {
    const org = await accounts.authenticate(readBasicAuth(req), req.ip ?? "unknown");
    const { keyId } = parseOrThrow(KeyIdParams, req.params, "keyId");
    await accounts.revokeKey(org.id, keyId);
    res.status(204).end();
  });

  return router;
}
