import { useCallback, useEffect, useState } from "preact/hooks";
import { CopyButton, FormError, formatTime, ScreenTitle, Section } from "../../../page-kit/ui.tsx";
import { Activity } from "./activity.tsx";
import {
  type Action,
  type Api,
  ApiError,
  call,
  explain,
  type KeyList,
  type Party,
  type PartyLookup,
} from "./api.ts";
import { Keys } from "./keys.tsx";
import type { Session, Settings } from "./session.ts";
import { TryIt } from "./try-it.tsx";

export function Account(props: {
  session: Session;
  settings: Settings;
  onLogOut: (notice?: string) => void;
}) {
  const { session, settings, onLogOut } = props;
  const api: Api = useCallback(
    <T,>(method: "GET" | "POST", path: string, action: Action, body?: unknown) =>
      call<T>(method, path, session.token, body).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) onLogOut(explain(err, action));
        throw err;
      }),
    [session.token, onLogOut],
  );
  // undefined while loading, null when the user has none yet.
  const [party, setParty] = useState<Party | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The raw key created in this tab, for the try-it box; kept in memory only, like the API shows it: once.
  const [rawKey, setRawKey] = useState<string | null>(null);
  // The key list, kept by the keys section; the usage and request log name keys by their labels.
  const [keys, setKeys] = useState<KeyList["keys"]>([]);

  useEffect(() => {
    api<PartyLookup>("GET", "/api/party", "read").then(
      (r) => setParty(r.party),
      (err: unknown) => setError(explain(err, "read")),
    );
  }, [api]);

  const createParty = async () => {
    setBusy(true);
    setError(null);
    try {
      setParty(await api<Party>("POST", "/api/party/create", "party"));
    } catch (err) {
      setError(explain(err, "party"));
      if (err instanceof ApiError && err.status === 409)
        setParty((await api<PartyLookup>("GET", "/api/party", "read")).party);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="page">
      <header class="top">
        <ScreenTitle>Gateway account</ScreenTitle>
        <p>
          Logged in as <strong>{session.email}</strong>{" "}
          <button type="button" class="link" onClick={() => onLogOut()}>
            Log out
          </button>
        </p>
      </header>
      <main>
        <Section title="Party" id="party-title">
          {party === undefined && !error && <p>Loading…</p>}
          {party === null && (
            <>
              <p>
                You have no ledger party yet. The party holds your balance; requests through the gateway are
                charged to it.
              </p>
              <button type="button" onClick={createParty} disabled={busy}>
                {busy ? "Creating…" : "Create party"}
              </button>
            </>
          )}
          {party && (
            <p>
              Party <code data-testid="party-id">{party.partyId}</code>, created {formatTime(party.createdAt)}
              . <CopyButton text={party.partyId} label="Copy party id" />
            </p>
          )}
          <FormError message={error} />
        </Section>
        {party && <Activity api={api} refreshSeconds={settings.refreshSeconds} party={party} keys={keys} />}
        <Keys api={api} onCreated={setRawKey} onLoaded={setKeys} />
        {party && <TryIt api={api} gatewayUrl={settings.gatewayUrl} rawKey={rawKey} />}
      </main>
    </div>
  );
}
