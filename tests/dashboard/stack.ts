import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createGatewayOperatorService } from "@stake/control-plane/operator";
import { coinsToBaseUnits } from "@stake/db/coin";
import { createRedisKeys } from "@stake/db/redis/keys";
import type { ConsoleMessage, Page } from "playwright-core";
import { createApp } from "../../control-plane/src/app.ts";
import { settlePartyOnce } from "../../control-plane/src/features/gateway-settlement/pass.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startGateway } from "../helpers/gateway.ts";
import { startJobs } from "../helpers/jobs.ts";

const listen = (server: Server) =>
  new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );

/**
 * What a gateway user's browser talks to: the real control plane on a socket (dashboard and account API),
 * a real gateway on the same Postgres and Redis, and a provider behind it priced 0.25 USD at 0.5 USD a coin
 * (0.5 coins a request) that answers 404 under /missing (a failed, released request).
 */
export async function startDashboardStack(env: Record<string, string> = {}) {
  const h = await createControlPlaneHarness({ DASHBOARD_REFRESH_SECONDS: "1", ...env });
  const upstream = createServer((req, res) => {
    if (req.url?.startsWith("/missing")) res.statusCode = 404;
    res.end("paid response");
  });
  const providerUrl = await listen(upstream);
  const gateway = await startGateway(h.config);
  // The gateway's port is known only now: the app the browser sees gets it as its public gateway URL.
  const config = { ...h.config, dashboard: { ...h.config.dashboard, gatewayUrl: gateway.url } };
  const logger = createLogger({ level: "silent", service: "control-plane" });
  const app = await createApp({ config, logger, db: h.db, redis: h.redis, checkResponses: true });
  const server = createServer(app);
  const url = await listen(server);
  const keys = createRedisKeys(h.config.redisPrefix);
  const operator = createGatewayOperatorService({ db: h.db, redis: h.redis, keys });
  await operator.addProvider({ key: "demo", originUrl: providerUrl, costInUsd: "0.25" });
  await operator.setCoinRate("0.5");
  // The worker's drain of a party's reservation log (GET /api/reservations waits for it).
  const jobs = await startJobs(h, [QUEUES.reservationDrain.name]);

  return {
    url,
    gatewayUrl: gateway.url,
    config,
    /** The operator funding a party (Postgres ledger credit, applied to Redis once per ref). */
    fund: (partyId: string, coins: string, ref: string) =>
      operator.fundParty({ partyId, amount: coinsToBaseUnits(coins), ref }),
    /** One settlement pass over the party, as the worker runs it each interval: charges what was served. */
    settle: (partyId: string) =>
      settlePartyOnce({ db: h.db, redis: h.redis, keys }, partyId, { reapAfterMs: 60_000, ttlSeconds: 3600 }),
    /** A user made through the API, as another browser tab or a script would. */
    async signup(email: string, password: string) {
      const res = await fetch(`${url}/api/onboarding/signup`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password }),
      });
      return (await res.json()) as { userId: string };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await gateway.close();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
      await jobs.close();
      await h.close();
    },
  };
}

export type DashboardStack = Awaited<ReturnType<typeof startDashboardStack>>;

/** Every console error and uncaught exception of a page, with the resource it concerns. */
export function watchConsole(page: Page) {
  const errors: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error") errors.push(`${m.text()} @ ${m.location().url}`);
  });
  page.on("pageerror", (e) => errors.push(`uncaught: ${e.message}`));
  return errors;
}
