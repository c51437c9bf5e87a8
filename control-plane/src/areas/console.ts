import type { Core } from "../core.ts";
import { consoleArea } from "../features/console/routes.ts";
import { createConsoleService } from "../features/console/service.ts";

export function composeArea({ consoleSessions }: Core) {
  return { routes: [consoleArea({ service: createConsoleService({ sessions: consoleSessions }) })] };
}
