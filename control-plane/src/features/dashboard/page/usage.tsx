import { useEffect, useState } from "preact/hooks";
import { ChartFrame } from "../../../page-kit/chart.tsx";
import { DataTable } from "../../../page-kit/table.tsx";
import { FormError, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type KeyList, type Usage } from "./api.ts";
import { fromUnits, toUnits } from "./coins.ts";
import { keyName } from "./keys.tsx";

type Key = KeyList["keys"][number];
type Row = Usage["rows"][number];
interface Sum {
  requests: number;
  failed: number;
  charged: bigint;
}

const DAY_MS = 86_400_000;
const RANGES = [7, 30, 90] as const;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Usage rows summed per `by` (a day, a provider, a key), charged in exact base units. */
function sumBy(rows: readonly Row[], by: (r: Row) => string): Map<string, Sum> {
  const sums = new Map<string, Sum>();
  for (const r of rows) {
    const s = sums.get(by(r)) ?? { requests: 0, failed: 0, charged: 0n };
    s.requests += r.requests;
    s.failed += r.failed;
    s.charged += toUnits(r.charged);
    sums.set(by(r), s);
  }
  return sums;
}

/**
 * Spend over time (a bar per UTC day, drawn here as SVG: nothing fetched, no chart library) and spend per
 * provider and per key, from the daily roll-up (GET /api/usage). A request counts once it is settled or
 * failed, so the last few seconds' requests join at the next refresh.
 */
export function UsageView(props: { api: Api; version: number; keys: readonly Key[] }) {
  const { api, version, keys } = props;
  const [days, setDays] = useState<number>(7);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const to = Date.now();
    const query = `from=${isoDay(to - (days - 1) * DAY_MS)}&to=${isoDay(to)}`;
    api<Usage>("GET", `/api/usage?${query}`, "read").then(
      (u) => {
        setUsage(u);
        setError(null);
      },
      (err: unknown) => setError(explain(err, "read")),
    );
  }, [api, days, version]);

  return (
    <Section title="Usage" id="usage-title">
      <div class="field narrow-field">
        <label for="usage-range">Period</label>
        <select id="usage-range" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {RANGES.map((d) => (
            <option key={d} value={d}>
              Last {d} days
            </option>
          ))}
        </select>
      </div>
      {usage && (
        <>
          <p data-testid="usage-totals">
            {usage.totals.requests} requests from {usage.from} to {usage.to} (UTC): {usage.totals.charged}{" "}
            coins charged, {usage.totals.failed} failed and released.
          </p>
          <Chart usage={usage} />
          <Breakdown
            caption="Spend per provider"
            column="Provider"
            testId="per-provider"
            entries={bySpend(sumBy(usage.rows, (r) => r.providerKey))}
          />
          <Breakdown
            caption="Spend per key"
            column="Key"
            testId="per-key"
            entries={bySpend(sumBy(usage.rows, (r) => r.keyId))}
            name={(id) => keyName(keys, id)}
          />
        </>
      )}
      <FormError message={error} />
    </Section>
  );
}

/** Requests, failures and coins charged per provider, key or day, in the order given. */
function Breakdown(props: {
  caption?: string;
  column: string;
  testId?: string;
  entries: [string, Sum][];
  name?: (id: string) => string;
}) {
  if (!props.entries.length) return null;
  return (
    <DataTable
      caption={props.caption}
      testId={props.testId}
      columns={[
        { label: props.column },
        { label: "Requests", num: true },
        { label: "Failed", num: true },
        { label: "Charged (coins)", num: true },
      ]}
    >
      {props.entries.map(([id, s]) => (
        <tr key={id}>
          <td>{props.name ? props.name(id) : id}</td>
          <td class="num">{s.requests}</td>
          <td class="num">{s.failed}</td>
          <td class="num">{fromUnits(s.charged)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/** The largest spender first. */
const bySpend = (sums: Map<string, Sum>) => [...sums].sort((a, b) => (b[1].charged > a[1].charged ? 1 : -1));

const W = 400;
const H = 160;
const LEFT = 4;
const BOTTOM = 20;
const TOP = 16;

/** Coins charged per UTC day as bars; the same figures in a table for screen readers and exact reading. */
function Chart(props: { usage: Usage }) {
  const { usage } = props;
  const perDay = sumBy(usage.rows, (r) => r.day);
  const days: string[] = [];
  for (let t = Date.parse(usage.from); t <= Date.parse(usage.to); t += DAY_MS) days.push(isoDay(t));
  const charged = days.map((d) => perDay.get(d)?.charged ?? 0n);
  let max = 0n;
  for (const c of charged) if (c > max) max = c;
  const slot = (W - LEFT) / days.length;
  const plot = H - BOTTOM - TOP;
  // Heights as a share of the largest day, in integer steps: exact enough for pixels, no float money.
  const height = (c: bigint) => (max === 0n ? 0 : Number((c * BigInt(plot * 100)) / max) / 100);
  const labelEvery = Math.ceil(days.length / 7);
  const peak = days[charged.indexOf(max)];
  return (
    <ChartFrame
      id="usage-chart"
      width={W}
      height={H}
      title="Coins charged per day"
      description={
        max === 0n
          ? `Nothing charged from ${usage.from} to ${usage.to}.`
          : `${days.length} days from ${usage.from} to ${usage.to}; the most, ${fromUnits(max)} coins, on ${peak}.`
      }
      caption={
        <details>
          <summary>Daily figures</summary>
          <Breakdown
            column="Day (UTC)"
            entries={days.map((d) => [d, perDay.get(d) ?? { requests: 0, failed: 0, charged: 0n }])}
          />
        </details>
      }
    >
      <line x1={LEFT} x2={W} y1={H - BOTTOM} y2={H - BOTTOM} stroke="#74777f" />
      {days.map((d, i) => {
        const h = height(charged[i] ?? 0n);
        const x = LEFT + i * slot;
        return (
          <g key={d}>
            {h > 0 && (
              <rect
                x={x + slot * 0.15}
                y={H - BOTTOM - h}
                width={slot * 0.7}
                height={h}
                fill="#0b57d0"
                data-day={d}
              />
            )}
            {i % labelEvery === 0 && (
              <text x={x + slot / 2} y={H - 5} text-anchor="middle" font-size="13" fill="#1b1b1f">
                {d.slice(5)}
              </text>
            )}
          </g>
        );
      })}
      {max === 0n && (
        <text x={W / 2} y={(H - BOTTOM) / 2} text-anchor="middle" font-size="13" fill="#44474f">
          Nothing charged in this period
        </text>
      )}
      {max > 0n && (
        <text x={LEFT} y={11} font-size="13" fill="#1b1b1f">
          {fromUnits(max)} coins
        </text>
      )}
    </ChartFrame>
  );
}
