/**
 * The bearer token lives in this tab's sessionStorage: it survives a reload but not the tab, is never sent
 * by the browser on its own (unlike a cookie) and is not shared with other tabs (unlike localStorage).
 */
const KEY = "gateway-dashboard-session";

/** What the page is served with (control-plane/src/features/dashboard/service.ts renders it). */
export interface Settings {
  gatewayUrl: string;
  refreshSeconds: number;
}

export interface Session {
  token: string;
  email: string;
}

export function loadSession(): Session | null {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(KEY) ?? "null") as Partial<Session> | null;
    return parsed && typeof parsed.token === "string" && typeof parsed.email === "string"
      ? { token: parsed.token, email: parsed.email }
      : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(KEY, JSON.stringify(session));
  else sessionStorage.removeItem(KEY);
}
