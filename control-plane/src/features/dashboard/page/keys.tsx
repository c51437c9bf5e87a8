import { useEffect, useRef, useState } from "preact/hooks";
import { DataTable } from "../../../page-kit/table.tsx";
import { CopyButton, FormError, formatTime, Section } from "../../../page-kit/ui.tsx";
import { type Api, explain, type KeyList, type NewKey } from "./api.ts";

type Key = KeyList["keys"][number];

/** A key as its owner knows it: the label they gave and its first characters; the id when unknown. */
export function keyName(keys: readonly Key[], keyId: string | null): string {
  if (!keyId) return "no key";
  const key = keys.find((k) => k.id === keyId);
  if (!key) return keyId;
  return key.label ? `${key.label} (${key.start}…)` : `${key.start}…`;
}

const focusHeading = () => document.getElementById("keys-title")?.focus();

export function Keys(props: {
  api: Api;
  onCreated: (rawKey: string) => void;
  onLoaded: (keys: Key[]) => void;
}) {
  const { api, onCreated, onLoaded } = props;
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [fresh, setFresh] = useState<NewKey | null>(null);
  const [confirming, setConfirming] = useState<Key | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [label, setLabel] = useState("");
  const load = () =>
    api<KeyList>("GET", "/api/api-key/list", "read").then((r) => {
      setKeys(r.keys);
      onLoaded(r.keys);
    });

  useEffect(() => {
    load().catch((err: unknown) => setError(explain(err, "read")));
  }, [api]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = label.trim() ? { label: label.trim() } : undefined;
      const key = await api<NewKey>("POST", "/api/api-key/create", "key", body);
      setLabel("");
      setFresh(key);
      onCreated(key.key);
      await load();
    } catch (err) {
      setError(explain(err, "key"));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Section title="API keys" id="keys-title">
      <p>
        Send a key in the <code>x-gateway-api-key</code> header of gateway requests.
      </p>
      {fresh ? (
        <NewKeyPanel
          created={fresh}
          onDone={() => {
            setFresh(null);
            focusHeading();
          }}
        />
      ) : (
        <div class="row end">
          <div class="field">
            <label for="key-label">Label (optional)</label>
            <input
              id="key-label"
              maxLength={64}
              autoComplete="off"
              aria-describedby="key-label-hint"
              value={label}
              onInput={(e) => setLabel(e.currentTarget.value)}
            />
            <p class="hint" id="key-label-hint">
              A name for the key (up to 64 characters), shown in the usage and the request log.
            </p>
          </div>
          <button type="button" onClick={create} disabled={busy}>
            {busy ? "Creating…" : "Create API key"}
          </button>
        </div>
      )}
      <FormError message={error} />
      {keys && keys.length === 0 && <p>No keys yet.</p>}
      {keys && keys.length > 0 && (
        <DataTable
          caption="Your keys, newest first. Only the first characters of each are kept for display."
          columns={[
            { label: "Label" },
            { label: "Key" },
            { label: "Key id" },
            { label: "Created" },
            { label: "Status" },
            { label: "Action", hidden: true },
          ]}
        >
          {keys.map((k) => (
            <tr key={k.id} data-testid="key-row" data-key-id={k.id}>
              <td data-testid="key-label">{k.label ?? "—"}</td>
              <td>
                <code>{k.start}…</code>
              </td>
              {/* What support and the operator CLI name a key by (gateway-keys deactivate <keyId>). */}
              <td class="wrap">
                <code data-testid="key-id">{k.id}</code>{" "}
                <CopyButton text={k.id} label="Copy id" context={`of key ${k.label ?? k.start}`} />
              </td>
              <td>{formatTime(k.createdAt)}</td>
              <td>
                {k.active ? (
                  <span class="badge active">active</span>
                ) : (
                  <span class="badge inactive">
                    deactivated {k.deactivatedAt && formatTime(k.deactivatedAt)}
                  </span>
                )}
              </td>
              <td>
                {k.active && (
                  <button type="button" class="secondary" onClick={() => setConfirming(k)}>
                    Deactivate<span class="visually-hidden"> key {k.start}…</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {confirming && (
        <ConfirmDeactivate
          keyStart={confirming.start}
          onCancel={() => setConfirming(null)}
          onConfirm={async () => {
            await api("POST", `/api/api-key/${confirming.id}/deactivate`, "deactivate");
            setConfirming(null);
            await load();
            focusHeading();
          }}
        />
      )}
    </Section>
  );
}

/** The raw key, once: a copy button and a warning that it cannot be shown again. */
function NewKeyPanel(props: { created: NewKey; onDone: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.select(), []);
  return (
    <section class="new-key" aria-labelledby="new-key-title">
      <h3 id="new-key-title">Your new API key</h3>
      <p class="warning">
        <strong>Copy it now.</strong> This is the only time the key is shown: only a hash of it is stored, so
        it cannot be shown again. Keep it secret, like a password.
      </p>
      <label for="new-key">New API key</label>
      <input id="new-key" ref={input} readOnly value={props.created.key} class="mono" />
      <div class="actions">
        <CopyButton text={props.created.key} label="Copy key" />
        <button type="button" class="secondary" onClick={props.onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}

/** A modal confirmation (native dialog: focus stays inside, Escape cancels); Cancel is focused first. */
function ConfirmDeactivate(props: {
  keyStart: string;
  onConfirm: () => Promise<void>;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Focus on Cancel, not on the destructive button the dialog would pick first.
  useEffect(() => {
    dialog.current?.showModal();
    cancel.current?.focus();
  }, []);
  const confirm = async () => {
    setBusy(true);
    try {
      await props.onConfirm();
    } catch (err) {
      setError(explain(err, "deactivate"));
      setBusy(false);
    }
  };
  return (
    <dialog
      ref={dialog}
      aria-labelledby="confirm-title"
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h3 id="confirm-title">Deactivate key {props.keyStart}…?</h3>
      <p>The gateway refuses requests with this key within a second. This cannot be undone.</p>
      <FormError message={error} />
      <div class="actions">
        <button type="button" class="danger" onClick={confirm} disabled={busy}>
          {busy ? "Deactivating…" : "Deactivate key"}
        </button>
        <button type="button" class="secondary" onClick={props.onCancel} ref={cancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
