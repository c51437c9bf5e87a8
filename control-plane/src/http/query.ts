import { z } from "zod";

/**
 * A list in the query string, given repeated (`?x=a&x=b`: Express gives an array) or comma-separated
 * (`?x=a,b`, as the spec's samples write it), each item checked by `item`.
 */
export function queryList<T extends z.ZodType<string, string>>(item: T, max: number) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      (Array.isArray(v) ? v : [v])
        .flatMap((s) => s.split(","))
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item).min(1).max(max));
}
