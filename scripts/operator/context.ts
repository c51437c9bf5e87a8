import { createDb, type Db } from "@stake/db/client";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys, type RedisKeys } from "@stake/db/redis/keys";
import type { Redis } from "ioredis";

/** What every operator command gets: connections from DATABASE_URL / REDIS_URL, and the output mode. */
export interface OperatorContext {
  db: Db;
  redis: Redis;
  keys: RedisKeys;
  env: NodeJS.ProcessEnv;
  /** True with --json: commands return data and the runner prints it as JSON. */
  json: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

/** One CLI command: `usage` is shown in help; `run` returns data (printed as JSON with --json) and a human line. */
export interface Command {
  usage: string;
  summary: string;
  /** Flags that take a value (`--label L`); every other flag is boolean. */
  valueFlags?: readonly string[];
  run(ctx: OperatorContext, args: ParsedArgs): Promise<{ data: unknown; text: string }>;
}

export class UsageError extends Error {}

export function createOperatorContext(env: NodeJS.ProcessEnv, json: boolean) {
  const databaseUrl = env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/staking";
  const redisUrl = env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const pg = createDb(databaseUrl, { max: 2, applicationName: "operator" });
  const redis = createRedis(redisUrl, { name: "operator" });
  const ctx: OperatorContext = {
    db: pg.db,
    redis,
    keys: createRedisKeys(env.REDIS_PREFIX ?? "stake:"),
    env,
    json,
  };
  return { ctx, close: () => Promise.allSettled([pg.close(), redis.quit()]) };
}

export function requirePositional(args: ParsedArgs, index: number, name: string): string {
  const v = args.positionals[index];
  if (!v) throw new UsageError(`missing <${name}>`);
  return v;
}
