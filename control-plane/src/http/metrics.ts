import type { RequestHandler } from "express";
import { collectDefaultMetrics, Histogram, Registry } from "prom-client";

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

  const serve: RequestHandler = async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  };

  return { track, serve };
}
