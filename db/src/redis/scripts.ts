import type { Redis } from "ioredis";
import { luaScript } from "./lua.ts";

/**
 * Registers the ledger Lua scripts on one ioredis client (EVALSHA with a transparent EVAL fallback).
 * See the KEYS/ARGV header of each file. The batch scripts (reserve, finalize) take a variable number of
 * keys, so their callers pass the key count first and get one reply per item.
 */
const SCRIPTS = { gwReserve: undefined, gwFinalize: undefined, gwCredit: 2 } as const;
const FILES: Record<keyof typeof SCRIPTS, string> = {
  gwReserve: "reserve",
  gwFinalize: "finalize",
  gwCredit: "credit",
};

export interface LedgerScripts {
  gwReserve(numberOfKeys: number, ...args: string[]): Promise<string[][]>;
  gwFinalize(numberOfKeys: number, ...args: string[]): Promise<string[][]>;
  gwCredit(...args: string[]): Promise<string[]>;
}

export function defineLedgerScripts(redis: Redis): Redis & LedgerScripts {
  for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as [
    keyof typeof SCRIPTS,
    number | undefined,
  ][]) {
    if (typeof (redis as unknown as Record<string, unknown>)[name] === "function") continue;
    const lua = luaScript(FILES[name]);
    redis.defineCommand(name, numberOfKeys === undefined ? { lua } : { numberOfKeys, lua });
  }
  return redis as Redis & LedgerScripts;
}
