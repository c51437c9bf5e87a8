import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { parseOrThrow } from "./errors.ts";

const messageOf = (schema: z.ZodType, input: unknown): string => {
  try {
    parseOrThrow(schema, input);
  } catch (err) {
    return (err as { details: { message: string }[] }).details[0]!.message;
  }
  throw new Error("parsed");
};

// Regression: "Invalid input: expected number, received NaN" reached users.
test("zod's library wording becomes plain wording in VALIDATION_ERROR details", () => {
  const cases: [z.ZodType, unknown, string][] = [
    [z.coerce.number(), "abc", "Must be a number"],
    [z.number().int(), 1.5, "Must be a whole number"],
    [z.string(), 5, "Must be a string"],
    [z.object({}), [], "Must be an object"],
    [z.string(), undefined, "Required"],
    [z.string().min(3), "ab", "Must be at least 3 characters"],
    [z.array(z.string()).max(1), ["a", "b"], "Must have at most 1 item"],
    [z.number().positive(), 0, "Must be greater than 0"],
    [z.number().max(10), 11, "Must be at most 10"],
    [z.enum(["a", "b"]), "c", 'Must be one of "a", "b"'],
    [z.strictObject({}), { x: 1 }, "Unknown field x"],
    [z.iso.datetime(), "yesterday", "Must be an ISO 8601 date and time, e.g. 2025-01-31T12:00:00Z"],
    [z.string().regex(/^a$/), "b", "Must be in the documented format"],
  ];
  for (const [schema, input, message] of cases) {
    const got = messageOf(schema, input);
    assert.equal(got, message);
    assert.doesNotMatch(got, /expected|received|Invalid input/);
  }
  assert.equal(messageOf(z.string().min(3, "Too short for a label"), "ab"), "Too short for a label");
});
