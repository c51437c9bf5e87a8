import { useEffect, useState } from "preact/hooks";
import { FormError, Section } from "../../../page-kit/ui.tsx";
import { type Api, type DateRewards, explain, gweiToEth } from "./api.ts";
import { type DayRewards, RewardsChart } from "./chart.tsx";
import { MonthField, monthRange, thisMonth } from "./month.tsx";
import { RatesView } from "./rates.tsx";

/** A month of daily Ethereum rewards, all validators of the organisation summed per day. */
async function readMonth(api: Api, month: string): Promise<DayRewards[]> {
  const { start, end } = monthRange(month);
  const r = await api<DateRewards>(
    "GET",
    `/api/rewards/date?start_date=${start}&end_date=${end}&interval=1d&per_page=31`,
    "read",
  );
  return r.interval_summary.map((d) => ({
    date: d.date,
    cl: d.validators.reduce((a, v) => a + BigInt(v.cl_reward), 0n),
    priority: d.validators.reduce((a, v) => a + BigInt(v.priority_fees), 0n),
    mev: d.validators.reduce((a, v) => a + BigInt(v.mev_reward), 0n),
  }));
}

export function Rewards(props: { api: Api }) {
  const { api } = props;
  const [month, setMonth] = useState(thisMonth);
  const [days, setDays] = useState<DayRewards[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setDays(null);
    setError(null);
    // A month picked while another loads: only the last one's answer is drawn.
    let current = true;
    readMonth(api, month).then(
      (d) => current && setDays(d),
      (err) => current && setError(explain(err, "read")),
    );
    return () => {
      current = false;
    };
  }, [api, month]);
  const any = days?.some((d) => d.cl !== 0n || d.priority !== 0n || d.mev !== 0n) ?? false;

  return (
    <>
      <Section title="Rewards over time" id="rewards-title">
        <MonthField id="rewards-month" value={month} onChange={setMonth} />
        <FormError message={error} />
        <div aria-live="polite">
          {days === null && !error && <p role="status">Loading rewards…</p>}
          {days && !any && (
            <p class="empty">No Ethereum rewards are indexed for your validators in {month}.</p>
          )}
        </div>
        {days && any && (
          <>
            <RewardsChart days={days} month={month} />
            <details>
              <summary>Daily figures (ETH)</summary>
              <div class="scroll">
                <table>
                  <caption>Rewards per UTC day, {month}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Day</th>
                      <th scope="col" class="num">
                        Consensus layer
                      </th>
                      <th scope="col" class="num">
                        Priority fees
                      </th>
                      <th scope="col" class="num">
                        MEV
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {days.map((d) => (
                      <tr key={d.date}>
                        <th scope="row">{d.date}</th>
                        <td class="num">{gweiToEth(d.cl.toString())}</td>
                        <td class="num">{gweiToEth(d.priority.toString())}</td>
                        <td class="num">{gweiToEth(d.mev.toString())}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </>
        )}
      </Section>
      <RatesView api={api} month={month} />
    </>
  );
}
