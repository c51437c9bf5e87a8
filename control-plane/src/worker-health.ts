import { createServer, type Server } from "node:http";
import type { BackgroundJob } from "./background-job.ts";

/**
 * The worker's liveness and readiness for orchestrators and `npm start`; it serves nothing else. Ready:
 * Postgres and Redis answer and every job is running.
 */
export function serveWorkerHealth(opts: {
  jobs: BackgroundJob[];
  checks: { postgres: () => Promise<unknown>; redis: () => Promise<unknown> };
  port: number;
  host: string;
}): Server {
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.url === "/healthz") return send(200, { status: "ok" });
    if (req.url === "/readyz") {
      const checks = await Promise.allSettled([opts.checks.postgres(), opts.checks.redis()]);
      const [postgres, redis] = checks.map((c) => (c.status === "fulfilled" ? "ok" : "unreachable"));
      const stopped = opts.jobs.filter((j) => !j.isRunning()).map((j) => j.name);
      const ready = postgres === "ok" && redis === "ok" && !stopped.length;
      return send(ready ? 200 : 503, {
        status: ready ? "ok" : "unavailable",
        postgres,
        redis,
        ...(stopped.length ? { stopped } : {}),
      });
    }
    send(404, { error: "No such endpoint", code: "NOT_FOUND" });
  });
  return server.listen(opts.port, opts.host);
}
