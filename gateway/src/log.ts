import { type Logger, pino } from "pino";

export type { Logger };

/**
 * Root logger. No line carries request headers (the access line is built from named fields only), so the
 * key header cannot reach a log, and no per-line redaction pass is paid on the hot path.
 */
export function createGatewayLogger(level: string): Logger {
  // Asynchronous stdout: one access line per request must not cost a blocking write on the hot path.
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino({ level, base: { service: "gateway" } }, destination);
}
