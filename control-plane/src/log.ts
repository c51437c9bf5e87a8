import { pino } from "pino";

/** Paths that may carry secrets; pino replaces them before a line is written. */
export const REDACT = [
  "req.headers.authorization",
  'req.headers["api-key"]',
  'req.headers["x-api-key"]',
  'req.headers["x-gateway-api-key"]',
  "*.password",
  "*.privateKey",
  "*.mnemonic",
  "*.secret",
  "*.apiKey",
];

/** `destination` (default stdout) lets a test read the lines a request writes. */
export function createLogger(options: {
  level: string;
  service: string;
  destination?: { write(line: string): void };
}) {
  const settings = {
    level: options.level,
    base: { service: options.service },
    redact: { paths: REDACT, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

export type Logger = pino.Logger;
