type Truthy<T> = Exclude<T, false | 0 | 0n | "" | null | undefined>;

/**
 * The one way a test waits: until `check` returns a truthy value (which it returns), polling every
 * `intervalMs`. A throw counts as "not yet" (a server still starting, a row not written), and the last one
 * is named if time runs out. The bound only ends a wait that will never succeed, so it is generous (60 s
 * by default): on a busy machine a condition takes longer, never a different path. Never a fixed sleep
 * where a condition exists.
 */
export async function eventually<T>(
  check: () => T | Promise<T>,
  options: { what: string; timeoutMs?: number; intervalMs?: number },
): Promise<Truthy<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as Truthy<T>;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline)
      throw new Error(
        `timed out waiting for ${options.what}${last ? `: ${(last as Error).message ?? last}` : ""}`,
        {
          cause: last,
        },
      );
    await sleep(options.intervalMs ?? 20);
  }
}

/**
 * A pause that is itself the subject of a test: a quiet period that must pass (nothing may happen during
 * it) or time a process must be given to misbehave. Not for waiting on something to happen: `eventually`.
 */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
