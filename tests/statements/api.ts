import assert from "node:assert/strict";
import request from "supertest";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";

/** A statement row or totals as the wire has them. */
export type Row = Record<string, string | null>;

/** Every page of `GET /api/statements` (100 a page): the first answer, and the rows of all pages. */
export async function allPages(app: ControlPlaneHarness["app"], key: string, query: Record<string, string>) {
  const rows: Row[] = [];
  let first: Record<string, unknown> | undefined;
  for (let page = 1; ; page++) {
    const res = await request(app)
      .get("/api/statements")
      .query({ ...query, page: String(page), per_page: "100" })
      .set("api-key", key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    first ??= res.body;
    rows.push(...res.body.results);
    if (page >= res.body.pages) break;
  }
  assert.ok(first);
  assert.equal(rows.length, first.total);
  return { body: first as Record<string, unknown> & { totals: Row }, rows };
}

/** `GET /api/statements.csv`, parsed by its header line (the cells of these tests hold no comma). */
export async function csvRows(app: ControlPlaneHarness["app"], key: string, query: Record<string, string>) {
  const res = await request(app).get("/api/statements.csv").query(query).set("api-key", key);
  assert.equal(res.status, 200, res.text);
  assert.match(String(res.headers["content-type"]), /^text\/csv/);
  const [header, ...lines] = res.text.split("\r\n").filter((l) => l !== "");
  const names = (header ?? "").split(",");
  return lines.map((l) => Object.fromEntries(l.split(",").map((c, i) => [names[i], c])));
}

/** JSON rows as their CSV cells: null is the empty cell. */
export const asCsv = (rows: Row[]) =>
  rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v ?? ""])));

export const sum = (rows: Row[], f: string) => rows.reduce((s, r) => s + BigInt(r[f] ?? "0"), 0n).toString();
