import { useState } from "preact/hooks";
import { Field, FormError, ScreenTitle } from "../../../page-kit/ui.tsx";
import { call, explain, type SignIn } from "./api.ts";
import type { Session } from "./session.ts";

/** The v2 account's e-mail and password: the password goes to the server once and is not kept. */
export function SignInForm(props: { notice?: string | undefined; onSignedIn: (s: Session) => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const s = await call<SignIn>("POST", "/console/session", undefined, { email, password });
      props.onSignedIn({ token: s.token, expiresAt: s.expiresAt });
    } catch (err) {
      setError(explain(err, "sign-in"));
      setBusy(false);
    }
  };
  return (
    <main class="narrow">
      <ScreenTitle>Sign in to the staking console</ScreenTitle>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <form onSubmit={onSubmit} aria-label="Sign in" noValidate>
        <Field
          id="sign-in-email"
          label="E-mail"
          type="email"
          autoComplete="username"
          value={email}
          onInput={setEmail}
        />
        <Field
          id="sign-in-password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onInput={setPassword}
        />
        <FormError message={error} />
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p>
        Use your organisation's account (<code>POST /user/signup</code>, approved by the operator). The
        session lasts 30 minutes.
      </p>
    </main>
  );
}
