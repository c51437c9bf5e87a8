import { type Logger, pino } from "pino";

export type { Logger };

/** Root logger; the key header never reaches a log line. */
export function createGatewayLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "gateway" },
    redact: { paths: ['req.headers["x-gateway-api-key"]', "headers.authorization"], censor: "[redacted]" },
  });
}
