import { Readable } from "node:stream";
import { csvLine } from "../../http/csv.ts";
import { tokens, valueAt } from "./cells.ts";
import type { StatementsRepo } from "./repo.ts";
import type { StatementCsvQuery, StatementQuery } from "./schemas.ts";
import type { Month, Organisation, StatementRow, StatementSource } from "./source.ts";

/** Rows read per query while a CSV streams: memory stays one batch whatever the month's size. */
const CSV_BATCH = 2_000;
/**
 * Rows per chunk written: about 30 KiB. A string over V8's regular object limit (128 KiB; a whole batch
 * is 300 KiB) is allocated in its large-object space, which only a full collection frees, so a month of
 * such chunks piled up until one ran (+60 MiB for 4,000 validators); chunks this size die young.
 */
const CSV_CHUNK_ROWS = 200;

/** The wire fields of a row, in CSV column order (the CSV's header line is these names). */
export const ROW_FIELDS = [
  "date",
  "account",
  "earned",
  "earned_tokens",
  "withdrawn",
  "withdrawn_tokens",
  "cl_reward",
  "priority_fees",
  "mev_reward",
  "end_of_day_balance",
  "price",
  "value",
] as const;
type WireRow = Record<(typeof ROW_FIELDS)[number], string | null>;

/** The next batch as CSV chunks of CSV_CHUNK_ROWS rows, or null after the last; the rows stay in here. */
async function nextChunks(
  batches: AsyncIterator<StatementRow[]>,
  toWire: (r: StatementRow) => WireRow,
): Promise<string[] | null> {
  const next = await batches.next();
  if (next.done) return null;
  const chunks: string[] = [];
  const batch = next.value;
  for (let i = 0; i < batch.length; i += CSV_CHUNK_ROWS) {
    const lines: string[] = [];
    for (const r of batch.slice(i, i + CSV_CHUNK_ROWS)) {
      const w = toWire(r);
      lines.push(csvLine(ROW_FIELDS.map((f) => w[f])));
    }
    // One flat string, not a rope of 200 lines each kept alive until the socket takes it.
    chunks.push(lines.join(""));
  }
  return chunks;
}

export function monthOf(month: string): Month {
  const [y, m] = month.split("-").map(Number) as [number, number];
  const next = m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, "0")}`;
  return { month, start: `${month}-01`, end: `${next}-01` };
}

const opt = (v: bigint | null) => (v === null ? null : v.toString());

/**
 * Statements (docs/spec.md, Statements, our addition): an organisation's month of one chain, one row per
 * validator or stake account and UTC day, as JSON pages and as a streamed CSV with the same rows.
 */
export function createStatementsService(deps: {
  sources: readonly StatementSource[];
  repo: StatementsRepo;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const sourceOf = (chain: string) => {
    const s = deps.sources.find((x) => x.chain === chain);
    // The query schema lists exactly the chains the area composes.
    if (!s) throw new Error(`no statement source for ${chain}`);
    return s;
  };

  function wire(s: StatementSource, prices: Map<string, string>) {
    return (r: StatementRow): WireRow => {
      const price = prices.get(r.date) ?? null;
      return {
        date: r.date,
        account: r.account,
        earned: r.earned.toString(),
        earned_tokens: tokens(r.earned, s.decimals),
        withdrawn: r.withdrawn.toString(),
        withdrawn_tokens: tokens(r.withdrawn, s.decimals),
        cl_reward: opt(r.cl),
        priority_fees: opt(r.priorityFees),
        mev_reward: opt(r.mev),
        end_of_day_balance: opt(r.endBalance),
        price,
        value: valueAt(r.earned, s.decimals, price),
      };
    };
  }

  async function page(org: Organisation, q: StatementQuery) {
    const s = sourceOf(q.chain);
    const m = monthOf(q.month);
    const [prices, totals, closed, rows] = await Promise.all([
      deps.repo.prices(s.token, q.currency, m.start, m.end),
      s.totals(org, m),
      s.closed(m, now()),
      s.rows(org, m, (q.page - 1) * q.per_page, q.per_page),
    ]);
    const results = rows.map(wire(s, prices));
    return {
      month: q.month,
      chain: s.chain,
      token: s.token,
      base_unit: s.baseUnit,
      decimals: s.decimals,
      currency: q.currency,
      closed,
      totals: {
        earned: totals.earned.toString(),
        earned_tokens: tokens(totals.earned, s.decimals),
        withdrawn: totals.withdrawn.toString(),
        withdrawn_tokens: tokens(totals.withdrawn, s.decimals),
        cl_reward: opt(totals.cl),
        priority_fees: opt(totals.priorityFees),
        mev_reward: opt(totals.mev),
      },
      results,
      page: q.page,
      per_page: q.per_page,
      total: totals.rows,
      pages: Math.ceil(totals.rows / q.per_page),
    };
  }

  /**
   * The month's rows as CSV, read in batches as the client takes them (backpressure): flat memory. Each
   * batch becomes text as soon as it is read and is dropped before the first chunk is written: only its
   * ~300 KiB of CSV waits on the socket, not 2,000 row objects and their bigints. Held while their chunks
   * were written, the rows were still live at the next scavenge and promoted to the old generation, where
   * only a full collection frees them (docs/benchmarks.md §6).
   */
  function csv(org: Organisation, q: StatementCsvQuery): Readable {
    const s = sourceOf(q.chain);
    const m = monthOf(q.month);
    async function* lines() {
      const prices = await deps.repo.prices(s.token, q.currency, m.start, m.end);
      const toWire = wire(s, prices);
      yield csvLine(ROW_FIELDS);
      const batches = s.stream(org, m, CSV_BATCH)[Symbol.asyncIterator]();
      for (let chunks = await nextChunks(batches, toWire); chunks; chunks = await nextChunks(batches, toWire))
        yield* chunks;
    }
    return Readable.from(lines(), { objectMode: false });
  }

  return { page, csv, sourceOf };
}

export type StatementsService = ReturnType<typeof createStatementsService>;
