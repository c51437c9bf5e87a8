import { ChartFrame } from "../../../page-kit/chart.tsx";
import { gweiToEth } from "./api.ts";

/** One day of the chart: Gwei per part, exact (bigint). */
export interface DayRewards {
  date: string;
  cl: bigint;
  priority: bigint;
  mev: bigint;
}

const W = 720;
const H = 260;
const PAD = { left: 8, right: 8, top: 12, bottom: 28 };
/** Parts bottom-up; the CSS classes give their colours (console.css), the legend their names. */
export const PARTS = [
  { key: "cl", label: "Consensus layer", class: "part-cl" },
  { key: "priority", label: "Priority fees", class: "part-priority" },
  { key: "mev", label: "MEV", class: "part-mev" },
] as const;

/**
 * Stacked bars, one a day, drawn by the page itself (no chart library, nothing fetched). Amounts stay
 * bigint; only the pixel heights are floats. A negative consensus-layer day (missed duties) is drawn below
 * the zero line. The exact figures are in the table that follows the chart.
 */
export function RewardsChart(props: { days: DayRewards[]; month: string }) {
  const { days } = props;
  // bigint: Math.min and Math.max do not take it.
  let top = 1n;
  let bottom = 0n;
  for (const d of days) {
    const up = [d.cl, d.priority, d.mev].filter((v) => v > 0n).reduce((x, v) => x + v, 0n);
    if (up > top) top = up;
    if (d.cl < bottom) bottom = d.cl;
  }
  const span = Number(top - bottom);
  const plotH = H - PAD.top - PAD.bottom;
  const y = (gwei: bigint) => PAD.top + (Number(top - gwei) / span) * plotH;
  const slot = (W - PAD.left - PAD.right) / Math.max(days.length, 1);
  const barW = Math.max(2, slot * 0.7);
  const total = days.reduce((a, d) => a + d.cl + d.priority + d.mev, 0n);
  return (
    <ChartFrame
      id="rewards-chart"
      width={W}
      height={H}
      stretch
      title={`Daily rewards, ${props.month}`}
      description={`Stacked bars of consensus-layer rewards, priority fees and MEV per UTC day; ${gweiToEth(total.toString())} ETH in all. The table below gives each day's figures.`}
      caption={<Legend items={PARTS} />}
    >
      <line class="axis" x1={PAD.left} x2={W - PAD.right} y1={y(0n)} y2={y(0n)} />
      {days.map((d, i) => {
        const x = PAD.left + i * slot + (slot - barW) / 2;
        let base = 0n;
        const rects = PARTS.map((p) => {
          const v = d[p.key];
          if (v === 0n) return null;
          // Negative CL hangs below zero; the positive parts stack upwards from it or from zero.
          const from = v < 0n ? 0n : base;
          const to = v < 0n ? v : base + v;
          if (v > 0n) base = to;
          return (
            <rect
              key={p.key}
              class={p.class}
              x={x}
              width={barW}
              y={Math.min(y(from), y(to))}
              height={Math.max(0.5, Math.abs(y(to) - y(from)))}
            />
          );
        });
        return (
          <g key={d.date} data-date={d.date}>
            {rects}
            {(i % 5 === 0 || i === days.length - 1) && (
              <text class="tick" x={x + barW / 2} y={H - 8} text-anchor="middle">
                {d.date.slice(8)}
              </text>
            )}
          </g>
        );
      })}
    </ChartFrame>
  );
}

/** A chart's key: a swatch in each series' colour (its CSS class) beside its name. */
export function Legend(props: { items: readonly { key: string; label: string; class: string }[] }) {
  return (
    <figcaption>
      <ul class="legend">
        {props.items.map((p) => (
          <li key={p.key}>
            <span class={`swatch ${p.class}`} aria-hidden="true" />
            {p.label}
          </li>
        ))}
      </ul>
    </figcaption>
  );
}
