import type { Redis } from "ioredis";
import { luaScript } from "./lua.ts";

/**
 * Registers the ledger Lua scripts on one ioredis client (EVALSHA with a transparent EVAL fallback).
 * Each returns a flat array whose first element is the outcome; see the KEYS/ARGV header of each file.
 */
const SCRIPTS = { gwReserve: 3, gwFinalize: 2, gwCredit: 2 } as const;
const FILES: Record<keyof typeof SCRIPTS, string> = {
  gwReserve: "reserve",
  gwFinalize: "finalize",
  gwCredit: "credit",
};

export interface LedgerScripts {
  gwReserve(...args: string[]): Promise<string[]>;
  gwFinalize(...args: string[]): Promise<string[]>;
  gwCredit(...args: string[]): Promise<string[]>;
}

export function defineLedgerScripts(redis: Redis): Redis & LedgerScripts {
  for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as [keyof typeof SCRIPTS, number][]) {
    if (typeof (redis as unknown as Record<string, unknown>)[name] === "function") continue;
    const lua = luaScript(FILES[name]);
    redis.defineCommand(name, { numberOfKeys, lua });
  }
  return redis as Redis & LedgerScripts;
}
