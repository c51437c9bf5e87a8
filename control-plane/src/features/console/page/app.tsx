import { useState } from "preact/hooks";
import { Console } from "./console.tsx";
import { loadSession, type Session, saveSession } from "./session.ts";
import { SignInForm } from "./sign-in.tsx";

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const signIn = (s: Session) => {
    saveSession(s);
    setNotice(undefined);
    setSession(s);
  };
  /** Back to sign-in, with why when it was not the user's choice (the session ended). */
  const signedOut = (why?: string) => {
    saveSession(null);
    setSession(null);
    setNotice(why);
  };
  if (session) return <Console session={session} onSignedOut={signedOut} />;
  return <SignInForm key={notice ?? ""} notice={notice} onSignedIn={signIn} />;
}
