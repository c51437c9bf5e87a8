import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../../../page-kit/table.tsx";
import { FormError, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type RateSeries, type ValidatorList } from "./api.ts";
import { monthRange } from "./month.tsx";
import { type Line, RateChart, runs } from "./rate-chart.tsx";

type Day = RateSeries["data"][number];
type Rate = number | null;
interface Pick {
  index: number;
  pubkey: string;
}
const WINDOWS = [7, 30] as const;
/** Pages of 100 read for the picker: an organisation's first 1,000 validators are offered by name. */
const MAX_PAGES = 10;

/** The organisation's validators that have a beacon index (the rates endpoint's per-validator scope). */
async function readValidators(api: Api): Promise<Pick[]> {
  const picks: Pick[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const r = await api<ValidatorList>("GET", `/api/validators/list?page=${page}&per_page=100`, "read");
    for (const { validator: v } of r.results)
      if (v.index !== null) picks.push({ index: v.index, pubkey: v.pubkey });
    if (page >= r.pages) break;
  }
  return picks;
}

/** A rate as the API gave it (six decimals at most), or said in words where it has none. */
function RateCell(props: { value: Rate }) {
  if (props.value === null)
    return (
      <td class="num">
        <span aria-hidden="true">—</span>
        <span class="visually-hidden">not enough data</span>
      </td>
    );
  return <td class="num">{String(props.value)}</td>;
}

/**
 * The days a window has no rate, in words, for each line of that window: one sentence when every line
 * misses the same days (the index's coverage), one a line otherwise (a validator without stake then).
 */
function gapSentences(days: readonly string[], month: string, lines: readonly (Line & { window: number })[]) {
  const spans = (values: readonly Rate[]) => {
    const missing = runs(values.map((v) => (v === null ? 0 : null)));
    if (missing.length === 1 && missing[0]?.length === days.length) return `in ${month}`;
    return missing
      .map((r) =>
        r.length === 1 ? `on ${days[r[0] ?? 0]}` : `from ${days[r[0] ?? 0]} to ${days[r.at(-1) ?? 0]}`,
      )
      .join(" and ");
  };
  return WINDOWS.flatMap((w) => {
    const mine = lines.filter((l) => l.window === w).map((l) => ({ label: l.label, where: spans(l.values) }));
    const said = mine.filter((m) => m.where);
    if (!said.length) return [];
    const blank = "those days are blank in the chart and the table";
    if (said.length === mine.length && said.every((m) => m.where === said[0]?.where))
      return [`Not enough data for a ${w}-day rate yet ${said[0]?.where}: ${blank}.`];
    return said.map((m) => `Not enough data for a ${w}-day rate yet (${m.label}) ${m.where}: ${blank}.`);
  });
}

/**
 * The organisation's (or one validator's) 7- and 30-day reward rates against the network's, per UTC day
 * of the month (`GET /api/rates`): a line chart of the totals, the exact figures with CL and EL apart in a
 * table. A day the index does not cover has no rate: a gap and a sentence, never a zero.
 */
export function RatesView(props: { api: Api; month: string }) {
  const { api, month } = props;
  const [validators, setValidators] = useState<Pick[] | null>(null);
  const [scope, setScope] = useState("");
  const [days, setDays] = useState<Day[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    readValidators(api).then(setValidators, (err) => setError(explain(err, "read")));
  }, [api]);
  useEffect(() => {
    setDays(null);
    setError(null);
    const { start, end } = monthRange(month);
    // This month's days still to come have no rate to ask for (ISO dates sort as text).
    const to = [end, new Date().toISOString().slice(0, 10)].sort()[0] ?? end;
    let current = true;
    const validator = scope ? `&validator=${scope}` : "";
    api<RateSeries>("GET", `/api/rates?from=${start}&to=${to}${validator}`, "read").then(
      (r) => current && setDays(r.data),
      (err) => current && setError(explain(err, "read")),
    );
    return () => {
      current = false;
    };
  }, [api, month, scope]);

  const own = (validators?.length ?? 0) > 0;
  const who = scope ? `Validator ${scope}` : "Your validators";
  const dates = days?.map((d) => d.date) ?? [];
  const mine = (d: Day) => (scope ? d.validator : d.organisation);
  const lines = WINDOWS.flatMap((w) => [
    ...(own
      ? [
          {
            key: `mine-${w}`,
            window: w,
            label: `${who}, ${w}-day`,
            class: `series-mine window-${w}`,
            values: days?.map((d) => mine(d)?.[`total_${w}d`] ?? null) ?? [],
          },
        ]
      : []),
    {
      key: `network-${w}`,
      window: w,
      label: `Network, ${w}-day`,
      class: `series-network window-${w}`,
      values: days?.map((d) => d.network[`total_${w}d`]) ?? [],
    },
  ]);
  const any = lines.some((l) => l.values.some((v) => v !== null));
  const latest = (l: Line | undefined) => l?.values.findLast((v) => v !== null);
  const described = lines
    .map((l) => {
      const v = latest(l);
      return v === undefined ? null : `${l.label}: ${v} % on the last day that has one`;
    })
    .filter(Boolean)
    .join("; ");

  return (
    <Section title="Rate against the network" id="rates-title">
      <p>
        Rewards as a yearly rate of the stake, in percent: the 7 and 30 days ending each UTC day of {month},
        beside the network's (every validator this platform indexes).
      </p>
      {validators && own && (
        <div class="field inline">
          <label for="rates-scope">Rates of</label>
          <select id="rates-scope" value={scope} onChange={(e) => setScope(e.currentTarget.value)}>
            <option value="">All your validators</option>
            {validators.map((v) => (
              <option key={v.index} value={String(v.index)}>
                {`Validator ${v.index} (${v.pubkey.slice(0, 10)}…${v.pubkey.slice(-4)})`}
              </option>
            ))}
          </select>
        </div>
      )}
      <FormError message={error} />
      <div aria-live="polite">
        {(days === null || validators === null) && !error && <p role="status">Loading rates…</p>}
        {validators && !own && (
          <p class="empty" data-testid="rates-no-validators">
            Your organisation has no Ethereum validators, so it has no rate of its own yet; the network's is
            shown alone.
          </p>
        )}
        {days && validators && (
          <ul class="gaps" data-testid="rate-gaps">
            {gapSentences(dates, month, lines).map((s) => (
              <li key={s}>{s}</li>
            ))}
          </ul>
        )}
      </div>
      {days && validators && any && (
        <>
          <RateChart
            days={dates}
            lines={lines}
            title={`Reward rates, ${who.toLowerCase()} against the network, ${month}`}
            description={`Lines of the 7- and 30-day rates (all rewards, percent a year) per UTC day; a gap where there is not enough data. ${described}. The table below gives each day's figures, consensus and execution layer apart.`}
          />
          <details>
            <summary>Daily rates (percent a year)</summary>
            <DataTable
              caption={`${who} and the network, ${month}, percent a year (CL: consensus layer; EL: execution layer, priority fees and MEV)`}
              testId="rates-table"
              columns={[
                { label: "Day" },
                ...WINDOWS.flatMap((w) => [
                  ...(own
                    ? [
                        { label: `${w}-day total`, num: true },
                        { label: `${w}-day CL`, num: true },
                        { label: `${w}-day EL`, num: true },
                      ]
                    : []),
                  { label: `Network ${w}-day`, num: true },
                ]),
              ]}
            >
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  {WINDOWS.map((w) => [
                    ...(own
                      ? (["total", "cl", "el"] as const).map((part) => (
                          <RateCell key={`${part}${w}`} value={mine(d)?.[`${part}_${w}d`] ?? null} />
                        ))
                      : []),
                    <RateCell key={`network${w}`} value={d.network[`total_${w}d`]} />,
                  ])}
                </tr>
              ))}
            </DataTable>
          </details>
        </>
      )}
    </Section>
  );
}
