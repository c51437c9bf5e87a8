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

/** `destination` (default stdout) lets a test read the lines a component writes. */
export function createLogger(options: {
  level: string;
  service: string;
  destination?: pino.DestinationStream;
}) {
  return pino(
    {
      level: options.level,
      base: { service: options.service },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

export type Logger = pino.Logger;
