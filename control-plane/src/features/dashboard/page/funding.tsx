import { FormError, formatTime, Pager, Section } from "../../../page-kit/ui.tsx";
import type { Api, CoinRate, FundingPage } from "./api.ts";
import { usePaged } from "./paged.tsx";

const PAGE_SIZE = 5;

/** How a party gets coins: there is no card payment; the operator credits the ledger. */
export function HowToFund(props: { partyId: string; rate: CoinRate["rate"] | undefined }) {
  const { rate } = props;
  return (
    <p data-testid="how-to-fund">
      To get funded, send the operator of this gateway your party id <code>{props.partyId}</code> with the
      amount you want; they credit your balance under a reference you can see in the funding history below.
      {rate && ` One coin is ${rate.usdPerCoin} USD (rate since ${formatTime(rate.since)}).`}
      {rate === null && " The operator has not set a coin price yet, so paid requests are not possible yet."}
    </p>
  );
}

/** The party's credits, newest first, each with the operator's reference (GET /api/funding). */
export function FundingHistory(props: { api: Api; version: number }) {
  const { list, page, pages, setPage, error } = usePaged<FundingPage>(
    props.api,
    "/api/funding",
    PAGE_SIZE,
    props.version,
  );
  return (
    <Section title="Funding history" id="funding-title">
      {list && list.total === 0 && <p>No funding yet.</p>}
      {list && list.total > 0 && (
        <>
          <div class="scroll">
            <table>
              <caption>Credits to your balance, newest first.</caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col" class="num">
                    Amount (coins)
                  </th>
                  <th scope="col">Reference</th>
                  <th scope="col">Available</th>
                </tr>
              </thead>
              <tbody>
                {list.credits.map((c) => (
                  <tr key={c.id} data-testid="credit">
                    <td>{formatTime(c.createdAt)}</td>
                    <td class="num">{c.amount}</td>
                    <td>
                      <code>{c.reference}</code>
                    </td>
                    <td>{c.appliedAt ? "yes" : "within a moment"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Funding pages" page={page} pages={pages} total={list.total} onPage={setPage} />
        </>
      )}
      <FormError message={error} />
    </Section>
  );
}
