import { FormError, formatTime, Pager, Section } from "../../../page-kit/ui.tsx";
import type { Api, KeyList, ReservationPage } from "./api.ts";
import { keyName } from "./keys.tsx";
import { usePaged } from "./paged.tsx";

const PAGE_SIZE = 10;

/** Every request through the gateway, newest first: one reservation each (GET /api/reservations). */
export function RequestLog(props: { api: Api; version: number; keys: KeyList["keys"] }) {
  const { list, page, pages, setPage, reload, error } = usePaged<ReservationPage>(
    props.api,
    "/api/reservations",
    PAGE_SIZE,
    props.version,
  );
  return (
    <Section title="Request log" id="requests-title">
      {/* A request that failed at once leaves the balance as it was, so polling alone would not show it. */}
      <button type="button" class="secondary" onClick={reload}>
        Refresh request log
      </button>
      {list && list.total === 0 && <p>No requests yet: each paid request through the gateway adds one.</p>}
      {list && list.total > 0 && (
        <>
          <div class="scroll">
            <table>
              <caption>
                Newest first. A request is charged when its reservation settles; a failed one is released and
                costs nothing.
              </caption>
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Path</th>
                  <th scope="col" class="num">
                    HTTP status
                  </th>
                  <th scope="col" class="num">
                    Latency
                  </th>
                  <th scope="col">Status</th>
                  <th scope="col" class="num">
                    Cost (coins)
                  </th>
                  <th scope="col">Key</th>
                  <th scope="col">Idempotency key</th>
                </tr>
              </thead>
              <tbody>
                {list.reservations.map((r) => (
                  <tr key={r.id} data-testid="request">
                    <td>{formatTime(r.createdAt)}</td>
                    {/* As the client asked it, less the query (not recorded: it may carry a secret). */}
                    <td class="wrap">
                      <code>
                        /gateway/{r.providerKey}
                        {r.path ?? ""}
                      </code>
                    </td>
                    <td class="num">{r.httpStatus ?? "—"}</td>
                    <td class="num">{r.upstreamMs === null ? "—" : `${r.upstreamMs} ms`}</td>
                    <td>
                      <span class={`badge ${r.status}`}>{r.status.replaceAll("_", " ")}</span>
                    </td>
                    <td class="num">{r.status === "failed" ? "0" : r.cost}</td>
                    <td>{keyName(props.keys, r.keyId)}</td>
                    <td class="wrap">
                      <code>{r.idempotencyKey}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager label="Request log pages" page={page} pages={pages} total={list.total} onPage={setPage} />
        </>
      )}
      <FormError message={error} />
    </Section>
  );
}
