import { ChartFrame } from "../../../page-kit/chart.tsx";
import { Legend } from "./chart.tsx";

/** One line of the chart: a value a day (percent a year) or null where the API has no rate. */
export interface Line {
  key: string;
  label: string;
  /** Its colour and dash (console.css); the legend shows the same. */
  class: string;
  values: (number | null)[];
}

const W = 720;
const H = 280;
const PAD = { left: 56, right: 12, top: 14, bottom: 28 };

/** A round step (1, 2 or 5 times a power of ten) giving about `count` ticks over `span`. */
function step(span: number, count: number): number {
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
}

/** Runs of consecutive days that have a value: a null day ends a run, so the line breaks there. */
export function runs(values: readonly (number | null)[]): number[][] {
  const out: number[][] = [];
  let current: number[] = [];
  values.forEach((v, i) => {
    if (v === null) {
      if (current.length) out.push(current);
      current = [];
    } else current.push(i);
  });
  if (current.length) out.push(current);
  return out;
}

/**
 * Reward rates as lines over the days, drawn by the page (no chart library). Rates are numbers the API
 * already rounded (six decimals), not amounts; they are only placed on pixels here. A day without a rate
 * is a gap in its line, never a zero; a day alone between gaps is a dot. The exact figures are in the
 * table that follows.
 */
export function RateChart(props: {
  days: readonly string[];
  lines: readonly Line[];
  title: string;
  description: string;
}) {
  const { days, lines } = props;
  const all = lines.flatMap((l) => l.values.filter((v): v is number => v !== null));
  const tick = step(Math.max(...all, 0) - Math.min(...all, 0) || 1, 4);
  const lo = Math.floor(Math.min(...all, 0) / tick) * tick;
  const hi = Math.max(Math.ceil(Math.max(...all, 0) / tick) * tick, lo + tick);
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v: number) => PAD.top + ((hi - v) / (hi - lo)) * plotH;
  const x = (i: number) => PAD.left + (i * (W - PAD.left - PAD.right)) / Math.max(days.length - 1, 1);
  const ticks: number[] = [];
  for (let t = lo; t <= hi + tick / 2; t += tick) ticks.push(t);
  return (
    <ChartFrame
      id="rates-chart"
      width={W}
      height={H}
      title={props.title}
      description={props.description}
      caption={
        <Legend items={lines.map((l) => ({ key: l.key, label: l.label, class: `line ${l.class}` }))} />
      }
    >
      {ticks.map((t) => (
        <g key={t}>
          <line class={t === 0 ? "axis" : "grid"} x1={PAD.left} x2={W - PAD.right} y1={y(t)} y2={y(t)} />
          <text class="tick" x={PAD.left - 6} y={y(t) + 4} text-anchor="end">
            {/* A label only: the rounding never reaches the table's figures. */}
            {`${Number(t.toFixed(6))} %`}
          </text>
        </g>
      ))}
      {days.map(
        (d, i) =>
          (i % 5 === 0 || i === days.length - 1) && (
            <text key={d} class="tick" x={x(i)} y={H - 8} text-anchor="middle">
              {d.slice(8)}
            </text>
          ),
      )}
      {/* Last drawn is on top: the caller's first line (the organisation's) over the network's. */}
      {[...lines].reverse().map((l) => {
        const drawn = runs(l.values);
        return (
          <g key={l.key} class={`series ${l.class}`} data-series={l.key} data-drawn={drawn.flat().length}>
            {drawn.map((run) =>
              run.length === 1 ? (
                <circle key={run[0]} cx={x(run[0] ?? 0)} cy={y(l.values[run[0] ?? 0] ?? 0)} r={3} />
              ) : (
                <path
                  key={run[0]}
                  d={run
                    .map(
                      (i, k) => `${k === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(l.values[i] ?? 0).toFixed(1)}`,
                    )
                    .join(" ")}
                />
              ),
            )}
          </g>
        );
      })}
    </ChartFrame>
  );
}
