import { useEffect, useState } from "preact/hooks";
import { FormError, formatTime, Section } from "../../../page-kit/ui.tsx";
import { type Api, type Deliveries, type Endpoints, explain } from "./api.ts";

type Endpoint = Endpoints["endpoints"][number];

/** The organisation's webhook endpoints and, for the one chosen, its latest deliveries. */
export function Webhooks(props: { api: Api }) {
  const { api } = props;
  const [endpoints, setEndpoints] = useState<Endpoint[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<Endpoints>("GET", "/api/webhooks/endpoints", "read").then(
      (r) => setEndpoints(r.endpoints),
      (err) => setError(explain(err, "read")),
    );
  }, [api]);
  return (
    <Section title="Webhooks" id="webhooks-title">
      <FormError message={error} />
      {endpoints?.length === 0 && (
        <p class="empty">
          No webhook endpoints yet. Add one with <code>POST /api/webhooks/endpoints</code> to hear of exits,
          provisioning and closed statements.
        </p>
      )}
      {endpoints && endpoints.length > 0 && (
        <ul class="endpoints">
          {endpoints.map((e) => (
            <li key={e.id}>
              <p>
                <code class="mono">{e.url}</code>{" "}
                {e.enabled ? "enabled" : `disabled${e.disabledReason ? `: ${e.disabledReason}` : ""}`}
                {e.description && ` — ${e.description}`}
              </p>
              <p>Events: {e.eventTypes.length ? e.eventTypes.join(", ") : "all"}</p>
              <button
                type="button"
                class="secondary"
                aria-expanded={open === e.id}
                onClick={() => setOpen(open === e.id ? null : e.id)}
              >
                {open === e.id ? "Hide deliveries" : "Show deliveries"}
                <span class="visually-hidden"> of {e.url}</span>
              </button>
              {open === e.id && <DeliveryLog api={api} endpointId={e.id} />}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function DeliveryLog(props: { api: Api; endpointId: string }) {
  const [log, setLog] = useState<Deliveries | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    props
      .api<Deliveries>("GET", `/api/webhooks/endpoints/${props.endpointId}/deliveries?pageSize=20`, "read")
      .then(setLog, (err) => setError(explain(err, "read")));
  }, [props.api, props.endpointId]);
  if (error) return <p class="error">{error}</p>;
  if (!log) return <p role="status">Loading deliveries…</p>;
  if (log.total === 0) return <p>Nothing delivered to this endpoint yet.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>
          Latest {log.deliveries.length} of {log.total} deliveries
        </caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {log.deliveries.map((d) => (
            <tr key={d.id}>
              <td>{formatTime(d.createdAt)}</td>
              <td>{d.type}</td>
              <td>{d.status}</td>
              <td class="num">{d.attempts}</td>
              <td>{d.responseStatus ?? d.lastError ?? "none yet"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
