import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../../../page-kit/table.tsx";
import { FormError, Pager, Section } from "../../../page-kit/ui.tsx";
import { type Api, type Download, explain, type Statement } from "./api.ts";
import { MonthField, thisMonth } from "./month.tsx";

const PER_PAGE = 20;
const CHAINS = [
  { id: "ethereum", label: "Ethereum" },
  { id: "hyperliquid", label: "Hyperliquid" },
] as const;

/** Monthly statements, a page at a time, and the whole month as CSV through the session. */
export function Statements(props: { api: Api; download: Download }) {
  const { api, download } = props;
  const [month, setMonth] = useState(thisMonth);
  const [chain, setChain] = useState<(typeof CHAINS)[number]["id"]>("ethereum");
  const [page, setPage] = useState(1);
  const [statement, setStatement] = useState<Statement | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState("");
  useEffect(() => {
    setError(null);
    let current = true;
    api<Statement>(
      "GET",
      `/api/statements?month=${month}&chain=${chain}&page=${page}&per_page=${PER_PAGE}`,
      "read",
    ).then(
      (s) => current && setStatement(s),
      (err) => current && setError(explain(err, "read")),
    );
    return () => {
      current = false;
    };
  }, [api, month, chain, page]);

  const saveCsv = async () => {
    setSaved("Preparing the CSV…");
    try {
      const blob = await download(`/api/statements.csv?month=${month}&chain=${chain}`);
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `statement-${chain}-${month}.csv`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      setSaved(`Downloaded statement-${chain}-${month}.csv.`);
    } catch (err) {
      setSaved("");
      setError(explain(err, "read"));
    }
  };

  return (
    <Section title="Statements" id="statements-title">
      <div class="controls">
        <MonthField
          id="statement-month"
          value={month}
          onChange={(m) => {
            setMonth(m);
            setPage(1);
          }}
        />
        <div class="field inline">
          <label for="statement-chain">Chain</label>
          <select
            id="statement-chain"
            value={chain}
            onChange={(e) => {
              setChain(e.currentTarget.value as typeof chain);
              setPage(1);
            }}
          >
            {CHAINS.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        <button type="button" onClick={saveCsv}>
          Download CSV
        </button>
        <span class="status" aria-live="polite">
          {saved}
        </span>
      </div>
      <FormError message={error} />
      {statement && statement.total === 0 && (
        <p class="empty">
          No statement rows for {chain} in {month}: no rewards were indexed for you that month.
        </p>
      )}
      {statement && statement.total > 0 && (
        <>
          <dl class="totals" data-testid="statement-totals">
            <dt>Earned</dt>
            <dd>
              {statement.totals.earned_tokens} {statement.token}
            </dd>
            <dt>Withdrawn</dt>
            <dd>
              {statement.totals.withdrawn_tokens} {statement.token}
            </dd>
            <dt>Month</dt>
            <dd>{statement.closed ? "closed" : "open (rows may still change)"}</dd>
          </dl>
          <DataTable
            caption={`${statement.total} rows: one per ${chain === "ethereum" ? "validator" : "delegator"} and UTC day, in ${statement.token}`}
            columns={[
              { label: "Day" },
              { label: "Account" },
              { label: "Earned", num: true },
              { label: "Withdrawn", num: true },
              { label: `Value (${statement.currency})`, num: true },
            ]}
          >
            {statement.results.map((r) => (
              <tr key={`${r.date}${r.account}`}>
                <th scope="row">{r.date}</th>
                <td>
                  <code
                    class="mono"
                    title={r.account}
                  >{`${r.account.slice(0, 10)}…${r.account.slice(-6)}`}</code>
                </td>
                <td class="num">{r.earned_tokens}</td>
                <td class="num">{r.withdrawn_tokens}</td>
                <td class="num">{r.value ?? "no price"}</td>
              </tr>
            ))}
          </DataTable>
          <Pager
            label="Statement pages"
            page={page}
            pages={statement.pages}
            total={statement.total}
            onPage={setPage}
            names={["Previous", "Next"]}
          />
        </>
      )}
    </Section>
  );
}
