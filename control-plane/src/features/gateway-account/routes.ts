import type { RequestHandler } from "express";
import { Router } from "express";
import type { Jwt } from "../../auth/jwt.ts";
import { AppError, parseOrThrow } from "../../errors.ts";
import { KeyIdParams, LoginRequest, PageQuery, SignupRequest } from "./schemas.ts";
import type { GatewayAccountService } from "./service.ts";

interface Deps {
  accounts: GatewayAccountService;
  jwt: Jwt;
  /** One limiter shared by every gateway-account prefix: 300 requests per 15 minutes per client. */
  limit: RequestHandler;
}

/** Bearer JWT → user id; "Unauthorized" without a bearer token, "Invalid token" for a bad one. */
async function userOf(jwt: Jwt, header: string | undefined): Promise<string> {
  const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header ?? "");
  if (!m?.[1]) throw new AppError("UNAUTHORIZED", "Unauthorized");
  const sub = await jwt.verify(m[1]);
  if (!sub) throw new AppError("INVALID_TOKEN", "Invalid token");
  return sub;
}

/** The gateway account API is mounted at several exact prefixes; each gets one of these routers. */
export function createGatewayAccountRouters({ accounts, jwt, limit }: Deps) {
  const onboarding = Router().use(limit);
  onboarding.post("/signup", async (req, res) => {
    res.status(201).json(await accounts.signup(parseOrThrow(SignupRequest, req.body)));
  });
  onboarding.post("/login", async (req, res) => {
    res.json(await accounts.login(parseOrThrow(LoginRequest, req.body)));
  });

  const party = Router().use(limit);
  party.post("/create", async (req, res) => {
    res.status(201).json(await accounts.createParty(await userOf(jwt, req.headers.authorization)));
  });

  const apiKey = Router().use(limit);
  apiKey.post("/create", async (req, res) => {
    res.status(201).json(await accounts.createKey(await userOf(jwt, req.headers.authorization)));
  });
  apiKey.post("/:id/deactivate", async (req, res) => {
    const userId = await userOf(jwt, req.headers.authorization);
    const { id } = parseOrThrow(KeyIdParams, req.params, "id");
    res.json(await accounts.deactivateKey(userId, id));
  });

  const balance = Router().use(limit);
  balance.get("/", async (req, res) => {
    res.json(await accounts.balance(await userOf(jwt, req.headers.authorization)));
  });

  const reservations = Router().use(limit);
  reservations.get("/", async (req, res) => {
    const userId = await userOf(jwt, req.headers.authorization);
    res.json(await accounts.reservations(userId, parseOrThrow(PageQuery, req.query, "query")));
  });

  const health = Router().use(limit);
  health.get("/", (_req, res) => {
    res.json({ status: "ok" });
  });

  return { onboarding, party, apiKey, balance, reservations, health };
}
