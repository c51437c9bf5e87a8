import type { Request } from "express";
import { AppError } from "../errors.ts";

export interface BasicCredentials {
  email: string;
  password: string;
}

/** Reads `Authorization: Basic base64(email:password)` (RFC 7617); the password may contain ':'. */
export function readBasicAuth(req: Request): BasicCredentials {
  const header = req.headers.authorization;
  if (!header) throw new AppError("MISSING_BASIC_AUTH", "Missing Basic authorization header");
  const match = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match?.[1]) throw new AppError("INVALID_BASIC_AUTH", "Malformed Basic authorization header");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0 || decoded.includes("\uFFFD")) {
    throw new AppError("INVALID_BASIC_AUTH", "Malformed Basic authorization header");
  }
  return { email: decoded.slice(0, colon).trim().toLowerCase(), password: decoded.slice(colon + 1) };
}
