import { useState } from "preact/hooks";
import { Account } from "./account.tsx";
import { LoginForm, SignupForm } from "./auth.tsx";
import { loadSession, type Session, type Settings, saveSession } from "./session.ts";

type Screen = { name: "login"; notice?: string } | { name: "signup" };

export function App(props: Settings) {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [screen, setScreen] = useState<Screen>({ name: "login" });

  const logIn = (s: Session) => {
    saveSession(s);
    setSession(s);
  };
  /** Back to the log-in screen, with why when it was not the user's choice (an expired token). */
  const logOut = (notice?: string) => {
    saveSession(null);
    setSession(null);
    setScreen(notice ? { name: "login", notice } : { name: "login" });
  };

  if (session) return <Account session={session} settings={props} onLogOut={logOut} />;
  if (screen.name === "signup")
    return <SignupForm onSignedUp={logIn} onLogIn={() => setScreen({ name: "login" })} />;
  return (
    <LoginForm
      key={screen.notice ?? ""}
      notice={screen.notice}
      onLoggedIn={logIn}
      onSignUp={() => setScreen({ name: "signup" })}
    />
  );
}
