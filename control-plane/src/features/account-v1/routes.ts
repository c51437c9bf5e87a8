import { Router } from "express";
import { AppError, parseOrThrow } from "../../errors.ts";
import { RegisterRequest } from "./schemas.ts";
import type { AccountV1Service } from "./service.ts";

/** Account area v1, mounted at /api/public. */
export function createAccountV1Router(deps: { accounts: AccountV1Service }): Router {
  const router = Router();
  const { accounts } = deps;

  router.post("/register", async (req, res) => {
    const input = parseOrThrow(RegisterRequest, req.body);
    const pendingUser = await accounts.register(input, req.ip ?? "unknown");
    res.status(200).json({
      success: true,
      pendingUser,
      message: "Registration received. The organisation awaits approval by the operator.",
    });
  });

  router.post("/generate-api-key", async (req, res) => {
    const header = req.headers["x-api-key"];
    if (header === undefined || header === "")
      throw new AppError("MISSING_API_KEY", "Missing x-api-key header");
    if (Array.isArray(header)) throw new AppError("INVALID_API_KEY", "x-api-key must be given once");
    const apiKey = await accounts.rotateKey(header.trim());
    res
      .status(200)
      .json({ success: true, apiKey, message: "New API key issued; the previous key is revoked." });
  });

  return router;
}
