import { hash, verify } from "@node-rs/argon2";

// @node-rs/argon2 exports Algorithm as a const enum; 2 is Argon2id.
const ARGON2ID = 2;

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hashed: string, password: string): Promise<boolean>;
  /** Burns the same time as a real check, for unknown accounts (no e-mail enumeration by timing). */
  verifyDummy(password: string): Promise<false>;
}

/** argon2id with parameters from config (OWASP: m=19 MiB, t=2, p=1 at the minimum). */
export function createPasswordHasher(params: { memoryCost: number; timeCost: number }): PasswordHasher {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: params.memoryCost,
    timeCost: params.timeCost,
    parallelism: 1,
  };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hash(password, options),
    verify: (hashed, password) => verify(hashed, password).catch(() => false),
    async verifyDummy(password) {
      dummy ??= hash("not-a-real-password", options);
      await verify(await dummy, password).catch(() => false);
      return false;
    },
  };
}
