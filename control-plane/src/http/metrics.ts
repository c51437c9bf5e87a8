import { createHash, timingSafeEqual } from "node:crypto";
import type { Request, RequestHandler } from "express";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { AppError } from "../errors.ts";

/**
 * Prometheus metrics for one process: default runtime metrics plus request latency by route pattern
 * (the matched Express path, never the raw URL, so ids and addresses do not explode label cardinality).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Control-plane request latency",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  const track: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.once("finish", () => {
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : "unmatched";
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };

  const serve = async () => ({ type: registry.contentType, body: await registry.metrics() });

  return { track, serve };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;
const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Who may read /metrics (it names routes, versions and load): with METRICS_TOKEN set, a caller presenting
 * it as a bearer token (compared in constant time); without one, only clients on loopback (a scraper
 * beside the process), as Express resolves the client address behind the trusted proxies.
 */
export function createMetricsAuth(token: string | undefined) {
  const wanted = token === undefined ? undefined : digest(token);
  return async (req: Request): Promise<{ scraper: true }> => {
    if (wanted === undefined) {
      if (!LOOPBACK.test(req.ip ?? ""))
        throw new AppError("FORBIDDEN", "Metrics are served to loopback clients only");
      return { scraper: true };
    }
    const presented = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), wanted)) {
      throw new AppError("UNAUTHORIZED", "Metrics need the METRICS_TOKEN bearer token");
    }
    return { scraper: true };
  };
}
