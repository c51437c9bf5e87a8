import { useEffect, useMemo, useState } from "preact/hooks";
import { FormError } from "../../../page-kit/ui.tsx";
import { call, explain, type Organisation, sessionApi } from "./api.ts";
import { Exits } from "./exits.tsx";
import { Keys } from "./keys.tsx";
import { Rewards } from "./rewards.tsx";
import type { Session } from "./session.ts";
import { Statements } from "./statements.tsx";
import { Validators } from "./validators.tsx";
import { Webhooks } from "./webhooks.tsx";

const VIEWS = [
  { id: "validators", label: "Validators" },
  { id: "rewards", label: "Rewards" },
  { id: "statements", label: "Statements" },
  { id: "exits", label: "Exits and withdrawals" },
  { id: "webhooks", label: "Webhooks" },
  { id: "keys", label: "API keys" },
] as const;
type View = (typeof VIEWS)[number]["id"];

export function Console(props: { session: Session; onSignedOut: (why?: string) => void }) {
  const { session, onSignedOut } = props;
  const { api, download } = useMemo(
    () => sessionApi(session.token, onSignedOut),
    [session.token, onSignedOut],
  );
  const [org, setOrg] = useState<Organisation | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [view, setView] = useState<View>("validators");

  useEffect(() => {
    api<Organisation>("GET", "/user/organisation", "read").then(setOrg, (err: unknown) =>
      setError(explain(err, "read")),
    );
  }, [api]);
  // A new view's heading takes focus, so keyboard and screen-reader users start reading there.
  const show = (next: View) => {
    setView(next);
    requestAnimationFrame(() => document.getElementById(`${next}-title`)?.focus());
  };
  const signOut = async () => {
    // The server forgets the token; the page forgets it whatever the answer.
    await call("DELETE", "/console/session", session.token).catch(() => undefined);
    onSignedOut("You are signed out.");
  };

  return (
    <>
      <header class="topbar">
        <p class="brand">{org ? org.org : "Staking console"}</p>
        <p class="who">{org?.email}</p>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav class="views" aria-label="Console views">
        <ul>
          {VIEWS.map((v) => (
            <li key={v.id}>
              <button
                type="button"
                class="tab"
                aria-current={view === v.id ? "page" : undefined}
                onClick={() => show(v.id)}
              >
                {v.label}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <main class="console">
        <h1 class="visually-hidden">Staking console</h1>
        <FormError message={error} />
        {view === "validators" && <Validators api={api} scope={org?.scope ?? null} />}
        {view === "rewards" && <Rewards api={api} />}
        {view === "statements" && <Statements api={api} download={download} />}
        {view === "exits" && <Exits api={api} />}
        {view === "webhooks" && <Webhooks api={api} />}
        {view === "keys" && <Keys api={api} />}
      </main>
    </>
  );
}
