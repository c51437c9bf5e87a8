/**
 * CSV as every CSV answer writes it (RFC 4180, CRLF lines): one set of cell rules, so a spreadsheet opening
 * any of our exports reads text as text and numbers as numbers.
 */

/** A cell that is nothing but a decimal number, which no spreadsheet reads as a formula. */
const NUMBER_CELL = /^-?\d+(?:\.\d+)?$/;
/** Characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180): a number is written as it is; any other text starting with = + - @ tab or CR
 * gets a leading `'` so a spreadsheet shows it instead of evaluating it; quotes where a comma, quote or
 * line break needs them. Null is the empty cell.
 */
export function csvCell(value: string | null): string {
  if (value === null) return "";
  const safe = !NUMBER_CELL.test(value) && FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export const csvLine = (cells: readonly (string | null)[]) => `${cells.map(csvCell).join(",")}\r\n`;
