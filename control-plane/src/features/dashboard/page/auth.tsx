import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Field, FormError, ScreenTitle } from "../../../page-kit/ui.tsx";
import { type Action, call, explain, type Login } from "./api.ts";
import type { Session } from "./session.ts";

/**
 * The e-mail and password form both screens share: busy while the call runs, the API's refusal explained
 * for this action under the fields, and a link to the other screen.
 */
function CredentialsForm(props: {
  action: "login" | "signup";
  title: string;
  submitLabel: string;
  busyLabel: string;
  passwordHint?: string;
  notice?: string | undefined;
  send: (email: string, password: string) => Promise<void>;
  children: ComponentChildren;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const login = props.action === "login";
  const onSubmit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await props.send(email, password);
    } catch (err) {
      setError(explain(err, props.action satisfies Action));
      setBusy(false);
    }
  };
  return (
    <main class="narrow">
      <ScreenTitle>{props.title}</ScreenTitle>
      {props.notice && (
        <p class="notice" role="status">
          {props.notice}
        </p>
      )}
      <form onSubmit={onSubmit} aria-label={props.submitLabel} noValidate>
        <Field
          id={`${props.action}-email`}
          label="E-mail"
          type="email"
          autoComplete={login ? "username" : "email"}
          value={email}
          onInput={setEmail}
        />
        <Field
          id={`${props.action}-password`}
          label="Password"
          type="password"
          autoComplete={login ? "current-password" : "new-password"}
          {...(props.passwordHint ? { hint: props.passwordHint } : {})}
          value={password}
          onInput={setPassword}
        />
        <FormError message={error} />
        <button type="submit" disabled={busy}>
          {busy ? props.busyLabel : props.submitLabel}
        </button>
      </form>
      <p>{props.children}</p>
    </main>
  );
}

export function LoginForm(props: {
  notice?: string | undefined;
  onLoggedIn: (session: Session) => void;
  onSignUp: () => void;
}) {
  return (
    <CredentialsForm
      action="login"
      title="Log in to your gateway account"
      submitLabel="Log in"
      busyLabel="Logging in…"
      notice={props.notice}
      send={async (email, password) => {
        const login = await call<Login>("POST", "/api/onboarding/login", undefined, { email, password });
        props.onLoggedIn({ token: login.token, email: email.trim().toLowerCase() });
      }}
    >
      No account yet?{" "}
      <button type="button" class="link" onClick={props.onSignUp}>
        Sign up
      </button>
    </CredentialsForm>
  );
}

/** Sign-up signs in: its answer carries the token log-in would give. */
export function SignupForm(props: { onSignedUp: (session: Session) => void; onLogIn: () => void }) {
  return (
    <CredentialsForm
      action="signup"
      title="Create a gateway account"
      submitLabel="Create account"
      busyLabel="Creating…"
      passwordHint="At least 8 characters, with a lowercase letter, an uppercase letter and a digit."
      send={async (email, password) => {
        const user = await call<Login & { email: string }>("POST", "/api/onboarding/signup", undefined, {
          email,
          password,
        });
        props.onSignedUp({ token: user.token, email: user.email });
      }}
    >
      Already have an account?{" "}
      <button type="button" class="link" onClick={props.onLogIn}>
        Log in
      </button>
    </CredentialsForm>
  );
}
