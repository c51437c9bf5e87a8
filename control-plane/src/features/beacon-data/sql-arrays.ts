/**
 * Whole columns as single array parameters (unnest): one statement per table whatever the count, without
 * building tens of thousands of bound parameters. For hex, addresses, ids, enum words and numbers only: the
 * values are not quoted.
 */
export const col = (xs: (string | number | bigint | null)[]) =>
  `{${xs.map((x) => (x === null ? "NULL" : String(x))).join(",")}}`;
