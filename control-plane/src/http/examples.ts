import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Request } from "express";
import type { ExampleRecorder, Route } from "./route.ts";

/**
 * The OpenAPI document's examples are real exchanges recorded while the tests run, never written by hand
 * (docs/testing.md, "OpenAPI examples"): `npm run openapi:examples` runs the tests with a recorder and
 * writes them to `control-plane/src/openapi-examples.json`, which openapi.ts merges into the document.
 */
export interface Example {
  /** When it was recorded: a request valid then (an `expiresAt` in the future) is checked as of then. */
  at: string;
  /** The request as the client sent it, before validation. */
  request: { params?: unknown; query?: unknown; body?: unknown };
  /** The JSON reply; absent when the reply has none (204, a CSV export). */
  response?: unknown;
}

/** Per operation (`"post /user/api-keys"`), per status: one example. */
export type Examples = Record<string, Record<string, Example>>;

export const operationKey = (r: Pick<Route, "method" | "path">) => `${r.method} ${r.path}`;

/** Bigger is richer (a filled list over an empty one), up to a size a reader can take in at a glance. */
const READABLE = 2000;
const score = (e: Example) => {
  const size = JSON.stringify(e).length;
  return size <= READABLE ? size : -size;
};
/** Keeps `candidate` unless `into` has a richer readable example of that status (the first on a tie). */
export function keepExample(into: Examples, op: string, status: string, candidate: Example): void {
  const byStatus = into[op] ?? {};
  const kept = byStatus[status];
  if (!kept || score(candidate) > score(kept)) byStatus[status] = candidate;
  into[op] = byStatus;
}

/**
 * Secrets never reach the examples (nor the recorder's file): issued keys, JWTs and webhook secrets by
 * their shape, whatever field carries them, and passwords by name. A success's placeholder passes the
 * password rules, so the examples stay checkable; a refusal's does not, so a refused password never
 * reads as an acceptable one. Placeholders are left as they are: redacting twice changes nothing.
 */
const SECRET_SHAPES: [RegExp, string][] = [
  [/\b(stk|gwk)_[1-9A-HJ-NP-Za-km-z]{32,44}\b/g, "$1_REDACTED"],
  [/\bwhsec_[A-Za-z0-9+/=]+/g, "whsec_REDACTED"],
  [/\beyJ[\w-]*\.[\w-]+\.[\w-]+/g, "REDACTED.JWT.TOKEN"],
];
const SECRET_NAMES = /password|private|mnemonic/i;
const PASSWORD = { accepted: "Redacted-passw0rd", refused: "<redacted>" };

export function redact(value: unknown, refused = false): unknown {
  const walk = (v: unknown, name: string): unknown => {
    if (typeof v === "string") {
      if (!SECRET_NAMES.test(name))
        return SECRET_SHAPES.reduce((s, [shape, placeholder]) => s.replace(shape, placeholder), v);
      if (v === PASSWORD.accepted || v === PASSWORD.refused) return v;
      return refused ? PASSWORD.refused : PASSWORD.accepted;
    }
    if (Array.isArray(v)) return v.map((item) => walk(item, name));
    if (v && typeof v === "object")
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(value, "");
}

const nonEmpty = (o: unknown) => (o && typeof o === "object" && Object.keys(o).length ? o : undefined);

function requestOf(req: Request, refused: boolean): Example["request"] {
  const request = { params: nonEmpty(req.params), query: nonEmpty(req.query), body: req.body };
  return redact(JSON.parse(JSON.stringify(request)), refused) as Example["request"];
}

/**
 * A recorder that keeps, per operation and declared status, the preferred exchange seen in this process
 * (its JSON reply, if any), and writes them to a file of its own under `dir` when the process exits (test
 * processes exit normally).
 */
export function createExampleRecorder(dir: string): ExampleRecorder {
  const kept: Examples = {};
  const file = path.join(dir, `${process.pid}-${Date.now()}.json`);
  process.once("exit", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(kept));
  });
  return (r, declared) => (req, res, next) => {
    let body: unknown;
    const json = res.json.bind(res);
    res.json = (b) => {
      body = b;
      return json(b);
    };
    res.once("finish", () => {
      const spec = declared[res.statusCode];
      // A status the route does not declare is a bug the tests report, not an example.
      if (!spec || (spec.body && body === undefined)) return;
      const refused = res.statusCode >= 400;
      const example: Example = { at: new Date().toISOString(), request: requestOf(req, refused) };
      if (body !== undefined) example.response = redact(JSON.parse(JSON.stringify(body)), refused);
      keepExample(kept, operationKey(r), String(res.statusCode), example);
    });
    next();
  };
}
