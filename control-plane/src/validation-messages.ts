import type { z } from "zod";

const NOUN: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "a whole number",
  bigint: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
  date: "a date",
  nan: "a number",
};

const FORMAT: Record<string, string> = {
  email: "a valid e-mail address",
  uuid: "a UUID",
  datetime: "an ISO 8601 date and time, e.g. 2025-01-31T12:00:00Z",
  date: "a date as YYYY-MM-DD",
  url: "a URL",
};

type Bound = { origin: string; inclusive?: boolean };
function bound(issue: Bound, limit: number | bigint, least: boolean): string {
  const n = String(limit);
  const s = n === "1" ? "" : "s";
  switch (issue.origin) {
    case "string":
      return `Must be ${least ? "at least" : "at most"} ${n} character${s}`;
    case "array":
    case "set":
      return `Must have ${least ? "at least" : "at most"} ${n} item${s}`;
    default:
      if (issue.inclusive === false) return `Must be ${least ? "greater" : "less"} than ${n}`;
      return `Must be ${least ? "at least" : "at most"} ${n}`;
  }
}

/**
 * Plain wording for every zod issue a schema did not word itself ("expected number, received NaN"
 * reached users once). Used by the one parse that builds VALIDATION_ERROR (`parseOrThrow`, errors.ts); a message
 * a schema gives wins over these. An absent value reads "Required", as the spec words it.
 */
export const zodMessages: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "Required";
      return `Must be ${NOUN[issue.expected] ?? issue.expected}`;
    case "too_small":
      return bound(issue, issue.minimum, true);
    case "too_big":
      return bound(issue, issue.maximum, false);
    case "invalid_format":
      return `Must be ${FORMAT[issue.format] ?? (issue.format === "regex" ? "in the documented format" : `a valid ${issue.format}`)}`;
    case "invalid_value":
      return `Must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return `Unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}`;
    case "not_multiple_of":
      return `Must be a multiple of ${String(issue.divisor)}`;
    case "invalid_union":
      return "Matches none of the accepted forms";
    case "invalid_key":
      return "Has an invalid key";
    case "invalid_element":
      return "Has an invalid entry";
    default:
      return undefined;
  }
};
