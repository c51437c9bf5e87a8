import type { BasicCredentials } from "../../http/basic-auth.ts";
import { createPageBundle } from "../../http/page-bundle.ts";
import { type ConsoleSessions, consoleToken } from "./sessions.ts";

/** The console page and its sign-in and sign-out over the sessions the composition root made (core.ts). */
export function createConsoleService(deps: { sessions: ConsoleSessions }) {
  const bundle = createPageBundle("console", {
    title: "Staking console",
    noscript: "The staking console needs JavaScript.",
  });
  return {
    page: () => bundle.page(),
    asset: (name: string) => bundle.asset(name),
    signIn: (credentials: BasicCredentials, ip: string) => deps.sessions.signIn(credentials, ip),
    async signOut(authorization: string | undefined): Promise<void> {
      const token = consoleToken(authorization);
      if (token) await deps.sessions.signOut(token);
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;
