import type { Redis } from "ioredis";
import { luaScript } from "./lua.ts";

/**
 * Registers the ledger Lua scripts on one ioredis client (EVALSHA with a transparent EVAL fallback).
 * See the KEYS/ARGV header of each file. The batch scripts (reserve, finalize, settle) take a variable
 * number of keys, so their callers pass the key count first and get one reply per item; credit returns a
 * flat array whose first element is the outcome.
 */
const SCRIPTS = { gwReserve: undefined, gwFinalize: undefined, gwCredit: 2, gwSettle: undefined } as const;
const FILES: Record<keyof typeof SCRIPTS, string> = {
  gwReserve: "reserve",
  gwFinalize: "finalize",
  gwCredit: "credit",
  gwSettle: "settle",
};

export interface LedgerScripts {
  gwReserve(numberOfKeys: number, ...args: string[]): Promise<string[][]>;
  gwFinalize(numberOfKeys: number, ...args: string[]): Promise<string[][]>;
  gwCredit(...args: string[]): Promise<string[]>;
  gwSettle(numberOfKeys: number, ...args: string[]): Promise<string[][]>;
}

/** The same commands queued on a pipeline (replies come back from `exec()`). */
export interface LedgerPipeline {
  gwReserve(numberOfKeys: number, ...args: string[]): this;
  gwFinalize(numberOfKeys: number, ...args: string[]): this;
  gwSettle(numberOfKeys: number, ...args: string[]): this;
  exec(): Promise<[Error | null, unknown][] | null>;
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

/** A pipeline of a client passed through defineLedgerScripts, typed with the script commands. */
export function ledgerPipeline(redis: Pick<Redis, "pipeline">): LedgerPipeline {
  return redis.pipeline() as unknown as LedgerPipeline;
}
