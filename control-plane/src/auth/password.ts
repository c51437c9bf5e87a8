import { hash, verify } from "@node-rs/argon2";

// @node-rs/argon2 exports Algorithm as a const enum; 2 is Argon2id.
const ARGON2ID = 2;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
  /** Burns the same time as a real check, for unknown accounts (no e-mail enumeration by timing). */
  verifyDummy(password: string): Promise<false>;
}

/**
 * At most `slots` calls of `run` at a time, the rest waiting in arrival order. argon2 runs on libuv's
 * thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which file system, DNS lookups, zlib
 * and crypto share: a burst of logins that took every thread would stall them all for its duration.
 */
export function createSlots(slots: number) {
  let busy = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (busy < slots) busy++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      release();
    }
  };
}

/**
 * argon2id with parameters from config (OWASP: m=19 MiB, t=2, p=1 at the minimum), at most `concurrency`
 * hashes at a time (ARGON2_CONCURRENCY; default 2 of libuv's 4 threads).
 */
export function createPasswordHasher(params: {
  memoryCost: number;
  timeCost: number;
  concurrency?: number;
}): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: params.memoryCost,
    timeCost: params.timeCost,
    parallelism: 1,
  };
  const bounded = createSlots(params.concurrency ?? 2);
  let dummy: Promise<string> | undefined;
  const check = (hashed: string, password: string) =>
    bounded(() => verify(hashed, password)).catch(() => false);
  return {
    hash: (password) => bounded(() => hash(password, options)),
    verify: check,
    async verifyDummy(password) {
      dummy ??= bounded(() => hash("not-a-real-password", options));
      await check(await dummy, password);
      return false;
    },
  };
}
