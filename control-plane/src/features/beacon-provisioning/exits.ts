import { createConsolidations } from "./consolidations.ts";
import { createExitChecks, type ExitDeps } from "./exit-checks.ts";
import { createExitMessages } from "./exit-messages.ts";
import { createOperatorExit } from "./operator-exit.ts";
import { createWithdrawalRequests } from "./withdrawal-requests.ts";

/**
 * The end of a validator's life and the moves of its stake (docs/spec.md "Exits, withdrawals and
 * consolidations"), one use case a file: voluntary exits the operator signs with the key it holds and sends
 * to the beacon node's pool (operator-exit.ts), the same exits handed to the client encrypted
 * (exit-messages.ts), and the EIP-7002 / EIP-7251 transactions the withdrawal address signs
 * (withdrawal-requests.ts, consolidations.ts), all on the same checks against the node's head state
 * (exit-checks.ts).
 */
export function createExitService(deps: ExitDeps) {
  const checks = createExitChecks(deps);
  return {
    exit: createOperatorExit(deps, checks),
    exitMessages: createExitMessages(deps, checks),
    withdrawalRequests: createWithdrawalRequests(deps, checks),
    consolidations: createConsolidations(deps, checks),
  };
}

export type ExitService = ReturnType<typeof createExitService>;
