import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../../../page-kit/table.tsx";
import { CopyButton, FormError, formatTime, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type KeyList, type NewKey } from "./api.ts";
import { Confirm } from "./confirm.tsx";

type Key = KeyList["keys"][number];

/** The organisation's staking API keys (`/user/api-keys`): list, create (shown once), revoke. */
export function Keys(props: { api: Api }) {
  const { api } = props;
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [label, setLabel] = useState("");
  const [fresh, setFresh] = useState<NewKey | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const load = () => api<KeyList>("GET", "/user/api-keys", "read").then((r) => setKeys(r.keys));
  useEffect(() => {
    load().catch((err) => setError(explain(err, "read")));
  }, [api]);

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
    } catch (err) {
      setError(explain(err, "key"));
    } finally {
      setBusy(false);
    }
  };
  const create = (e: Event) => {
    e.preventDefault();
    run(async () => {
      setFresh(await api<NewKey>("POST", "/user/api-keys", "key", { label: label.trim() || "console" }));
      setLabel("");
    });
  };

  return (
    <Section title="API keys" id="keys-title">
      <p>
        Send a key in the <code>api-key</code> header of the staking API.
      </p>
      <FormError message={error} />
      {fresh && (
        <div class="fresh" role="status">
          <label for="new-key">New API key (shown once)</label>
          <input id="new-key" class="mono" readOnly value={fresh.apiKey} />
          <CopyButton text={fresh.apiKey} label="Copy key" />
        </div>
      )}
      <form onSubmit={create} class="controls" aria-label="Create API key">
        <div class="field inline">
          <label for="key-label">Label</label>
          <input
            id="key-label"
            value={label}
            maxLength={64}
            onInput={(e) => setLabel(e.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={busy}>
          Create API key
        </button>
      </form>
      {revoking && (
        <Confirm
          title={`Revoke the key “${revoking.label}”?`}
          confirmLabel="Revoke key"
          busy={busy}
          onCancel={() => setRevoking(null)}
          onConfirm={() =>
            run(async () => {
              await api("DELETE", `/user/api-keys/${revoking.keyId}`, "key");
              setRevoking(null);
            })
          }
        >
          <p>Requests with it are refused at once. This cannot be undone.</p>
        </Confirm>
      )}
      {keys?.length === 0 && <p class="empty">No active API keys.</p>}
      {keys && keys.length > 0 && (
        <DataTable
          caption={`${keys.length} active keys`}
          columns={[{ label: "Label" }, { label: "Created" }, { label: "Actions", hidden: true }]}
        >
          {keys.map((k) => (
            <tr key={k.keyId}>
              <td>{k.label}</td>
              <td>{formatTime(k.createdAt)}</td>
              <td>
                <button type="button" class="secondary" disabled={busy} onClick={() => setRevoking(k)}>
                  Revoke<span class="visually-hidden"> {k.label}</span>
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Section>
  );
}
