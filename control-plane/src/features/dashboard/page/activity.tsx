import { DECIMALS, formatUnits, parseUnits } from "@stake/db/units";
import { useEffect, useRef, useState } from "preact/hooks";
import type { Api } from "./account.tsx";
import { ApiError, type Balance, explain, type ReservationPage } from "./api.ts";
import { formatTime, Section } from "./ui.tsx";

const PAGE_SIZE = 10;

/** Balance minus reserved, exactly (decimal strings → integers of base units → decimal string). */
function spendable(b: Balance): string {
  try {
    return formatUnits(
      parseUnits(b.balance, DECIMALS.coin) - parseUnits(b.reservedBalance, DECIMALS.coin),
      DECIMALS.coin,
    );
  } catch {
    return "—";
  }
}

/**
 * Balance and reservations, kept fresh by polling: the balance every `refreshSeconds` while the tab is
 * visible, the reservation page only when the balance changed (every paid request moves the reserved
 * balance), so an open page costs one request per period against the API's per-client limit.
 */
export function Activity(props: { api: Api; refreshSeconds: number }) {
  const { api, refreshSeconds } = props;
  const [balance, setBalance] = useState<Balance | null>(null);
  const [list, setList] = useState<ReservationPage | null>(null);
  const [status, setStatus] = useState("");
  const [updated, setUpdated] = useState<Date | null>(null);
  const page = useRef(1);
  const last = useRef("");

  const loadPage = async (p: number) => {
    const next = await api<ReservationPage>(
      "GET",
      `/api/reservations?page=${p}&pageSize=${PAGE_SIZE}`,
      "read",
    );
    page.current = p;
    setList(next);
  };

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
          await loadPage(page.current);
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

  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  const goTo = (p: number) => {
    loadPage(p).catch((err: unknown) => setStatus(explain(err, "read")));
  };
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
              <dd data-testid="spendable">{spendable(balance)}</dd>
            </div>
          </dl>
        ) : (
          <p>Loading…</p>
        )}
        <p class="hint" aria-live="polite">
          Amounts in ledger coins.{" "}
          {status ||
            (updated && `Updated ${updated.toLocaleTimeString()}; refreshed every ${refreshSeconds} s.`)}
        </p>
      </Section>
      <Section title="Reservations" id="reservations-title">
        {list && list.total === 0 && (
          <p>No reservations yet: each paid request through the gateway adds one.</p>
        )}
        {list && list.total > 0 && (
          <>
            <div class="scroll">
              <table>
                <caption>
                  Newest first. A reservation is charged when it settles; a failed one is released.
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Time</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Status</th>
                    <th scope="col">Cost (coins)</th>
                    <th scope="col">Cost (USD)</th>
                    <th scope="col">Idempotency key</th>
                  </tr>
                </thead>
                <tbody>
                  {list.reservations.map((r) => (
                    <tr key={r.id} data-testid="reservation">
                      <td>{formatTime(r.createdAt)}</td>
                      <td>{r.providerKey}</td>
                      <td>
                        <span class={`badge ${r.status}`}>{r.status.replaceAll("_", " ")}</span>
                      </td>
                      <td class="num">{r.cost}</td>
                      <td class="num">{r.costInUSD}</td>
                      <td>
                        <code>{r.idempotencyKey}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav class="pager" aria-label="Reservation pages">
              <button
                type="button"
                class="secondary"
                disabled={page.current <= 1}
                onClick={() => goTo(page.current - 1)}
              >
                Newer
              </button>
              <span>
                Page {page.current} of {pages} ({list.total} in all)
              </span>
              <button
                type="button"
                class="secondary"
                disabled={page.current >= pages}
                onClick={() => goTo(page.current + 1)}
              >
                Older
              </button>
            </nav>
          </>
        )}
      </Section>
    </>
  );
}
