import type { Redis } from "ioredis";
import { luaScript } from "./lua.ts";

/**
 * Registers the ledger Lua scripts on one ioredis client (EVALSHA with a transparent EVAL fallback).
 * Each returns a flat array whose first element is the outcome; see the KEYS/ARGV header of each file.
 */
const SCRIPTS = { gwReserve: 4, gwFinalize: 3, gwCredit: 2, gwSettle: 3 } as const;
const FILES: Record<keyof typeof SCRIPTS, string> = {
  gwReserve: "reserve",
  gwFinalize: "finalize",
  gwCredit: "credit",
  gwSettle: "settle",
};

export interface LedgerScripts {
  gwReserve(...args: string[]): Promise<string[]>;
  gwFinalize(...args: string[]): Promise<string[]>;
  gwCredit(...args: string[]): Promise<string[]>;
  gwSettle(...args: string[]): Promise<string[]>;
}

/** The same commands queued on a pipeline (replies come back from `exec()`). */
export interface LedgerPipeline {
  gwReserve(...args: string[]): this;
  gwFinalize(...args: string[]): this;
  gwSettle(...args: string[]): this;
  sadd(key: string, ...members: string[]): this;
  exec(): Promise<[Error | null, unknown][] | null>;
}

export function defineLedgerScripts(redis: Redis): Redis & LedgerScripts {
  for (const [name, numberOfKeys] of Object.entries(SCRIPTS) as [keyof typeof SCRIPTS, number][]) {
    if (typeof (redis as unknown as Record<string, unknown>)[name] === "function") continue;
    const lua = luaScript(FILES[name]);
    redis.defineCommand(name, { numberOfKeys, lua });
  }
  return redis as Redis & LedgerScripts;
}

/** A pipeline of a client passed through defineLedgerScripts, typed with the script commands. */
export function ledgerPipeline(redis: Pick<Redis, "pipeline">): LedgerPipeline {
  return redis.pipeline() as unknown as LedgerPipeline;
}
