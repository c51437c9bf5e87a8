/**
 * The session token lives in this tab's sessionStorage: it survives a reload but not the tab, is never sent
 * by the browser on its own (unlike a cookie: no cross-site request can use it) and is not shared with
 * other tabs. It ends on the server after 30 minutes or at sign-out.
 */
const KEY = "staking-console-session";

export interface Session {
  token: string;
  expiresAt: string;
}

export function loadSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<Session> | null;
    if (!s || typeof s.token !== "string" || typeof s.expiresAt !== "string") return null;
    return Date.parse(s.expiresAt) > Date.now() ? { token: s.token, expiresAt: s.expiresAt } : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}
