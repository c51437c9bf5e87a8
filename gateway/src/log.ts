import { type Logger, pino } from "pino";

export type { Logger };

/** Root logger; the key header never reaches a log line. */
export function createGatewayLogger(level: string): Logger {
  // Asynchronous stdout: one access line per request must not cost a blocking write on the hot path.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino(
    {
      level,
      base: { service: "gateway" },
      redact: { paths: ['req.headers["x-gateway-api-key"]', "headers.authorization"], censor: "[redacted]" },
    },
    destination,
  );
}
