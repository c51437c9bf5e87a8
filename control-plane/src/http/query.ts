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

/**
 * The one refusal of a reversed range in every area: VALIDATION_ERROR on the end field, e.g.
 * `.superRefine(endNotBefore("start_epoch", "end_epoch"))`. Works for numbers and ISO dates alike.
 */
export const endNotBefore =
  <S extends string, E extends string>(start: S, end: E) =>
  (q: Record<S | E, number | string>, ctx: z.RefinementCtx) => {
    if (q[end] < q[start])
      ctx.addIssue({ code: "custom", path: [end], message: `Must not be before ${start}` });
  };
