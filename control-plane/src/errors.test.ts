import assert from "node:assert/strict";
import { test } from "node:test";
import { AppError, BuilderError, ERROR_STATUS, mergeErrorTables, toAppError } from "./errors.ts";

test("the merged error table refuses a code defined twice", () => {
  assert.throws(() => mergeErrorTables({ A: 400 }, { B: 401 }, { A: 409 }), /error code A is defined twice/);
  assert.deepEqual(mergeErrorTables({ A: 400 }, { B: 401 }), { A: 400, B: 401 });
  assert.equal(ERROR_STATUS.UPSTREAM_TIMEOUT, 504, "the real tables merge without a clash");
});

test("a builder's refusal is the area's 400 VALIDATION_ERROR, never a 500", () => {
  const e = toAppError(new BuilderError("wei out of range: 0", "amount"));
  assert.ok(e instanceof AppError);
  assert.equal(e.status, 400);
  assert.equal(e.code, "VALIDATION_ERROR");
  assert.deepEqual(e.details, [{ field: "amount", message: "wei out of range: 0" }]);
  assert.equal(toAppError(new Error("boom")).status, 500);
});
