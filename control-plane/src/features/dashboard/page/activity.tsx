import { useEffect, useRef, useState } from "preact/hooks";
import { Section } from "../../../page-kit/ui.tsx";
import { type Api, ApiError, type Balance, type CoinRate, explain, type KeyList, type Party } from "./api.ts";
import { subtractCoins } from "./coins.ts";
import { FundingHistory, HowToFund } from "./funding.tsx";
import { RequestLog } from "./request-log.tsx";
import { Settings } from "./settings.tsx";
import { UsageView } from "./usage.tsx";

/**
 * Balance and what moves it, kept fresh by polling: the balance every `refreshSeconds` while the tab is
 * visible; the views below (request log, usage, spend caps, funding) are read again only when the balance
 * changed (every paid request and every credit moves it), so an open page costs one request per period
 * against the API's per-client limit.
 */
export function Activity(props: { api: Api; refreshSeconds: number; party: Party; keys: KeyList["keys"] }) {
  const { api, refreshSeconds, keys } = props;
  const [balance, setBalance] = useState<Balance | null>(null);
  // Bumped when the balance changed: the views below read again.
  const [version, setVersion] = useState(0);
  const [rate, setRate] = useState<CoinRate["rate"] | undefined>(undefined);
  const [status, setStatus] = useState("");
  const [updated, setUpdated] = useState<Date | null>(null);
  const last = useRef("");

  useEffect(() => {
    api<CoinRate>("GET", "/api/coin-rate", "read").then(
      (r) => setRate(r.rate),
      () => {},
    );
  }, [api]);

  useEffect(() => {
    let timer: number | undefined;
    let running = false;
    let stopped = false;
    const tick = async () => {
      if (running || stopped) return;
      running = true;
      let delay = refreshSeconds * 1000;
      try {
        const b = await api<Balance>("GET", "/api/balance", "read");
        const seen = JSON.stringify(b);
        if (seen !== last.current) {
          last.current = seen;
          setBalance(b);
          setVersion((v) => v + 1);
        }
        setUpdated(new Date());
        setStatus("");
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) return; // the session is over
        setStatus(`Refresh paused: ${explain(err, "read")}`);
        if (err instanceof ApiError && err.retryAfterSeconds) delay = err.retryAfterSeconds * 1000;
      } finally {
        running = false;
      }
      if (!stopped && !document.hidden) timer = window.setTimeout(tick, delay);
    };
    // A hidden tab stops polling and catches up the moment it is shown again.
    const onVisibility = () => {
      window.clearTimeout(timer);
      if (!document.hidden) void tick();
    };
    document.addEventListener("visibilitychange", onVisibility);
    void tick();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [api, refreshSeconds]);

  return (
    <>
      <Section title="Balance" id="balance-title">
        {balance ? (
          <dl class="balance">
            <div>
              <dt>Balance</dt>
              <dd data-testid="balance">{balance.balance}</dd>
            </div>
            <div>
              <dt>Reserved</dt>
              <dd data-testid="reserved">{balance.reservedBalance}</dd>
            </div>
            <div>
              <dt>Spendable</dt>
              <dd data-testid="spendable">{subtractCoins(balance.balance, balance.reservedBalance)}</dd>
            </div>
            {rate && (
              <div>
                <dt>Coin price</dt>
                <dd data-testid="coin-rate">{rate.usdPerCoin} USD</dd>
              </div>
            )}
          </dl>
        ) : (
          <p>Loading…</p>
        )}
        <p class="hint" aria-live="polite">
          Amounts in ledger coins.{" "}
          {status ||
            (updated && `Updated ${updated.toLocaleTimeString()}; refreshed every ${refreshSeconds} s.`)}
        </p>
        <HowToFund partyId={props.party.partyId} rate={rate} />
      </Section>
      {/* Shown from the first balance on, so their first read is not repeated by the first bump. */}
      {version > 0 && (
        <>
          <UsageView api={api} version={version} keys={keys} />
          <RequestLog api={api} version={version} keys={keys} />
          <FundingHistory api={api} version={version} />
          <Settings api={api} version={version} />
        </>
      )}
    </>
  );
}
