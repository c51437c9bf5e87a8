import { type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";

/** The Idempotency-Key of the demo's own provision: every start finds the same two validators. */
const DEMO_PROVISION_KEY = "npm-start-demo-validators";

interface ProvisionAnswer {
  provisionStatus: string;
  reason?: string;
  to: Address;
  depositInput: Hex;
  value: string;
  results: { validatorAddress: string }[];
}

/**
 * The demo organisation's own Ethereum validators, as a client gets them: two provisioned through the
 * control plane's API (the same two at every start, by their Idempotency-Key), their batch deposit sent
 * from anvil's unlocked user account, which is also their withdrawal address (so the EIP-7002/7251 requests
 * the API builds for them can be sent from it). The devnet is a new chain at every start: the deposit goes
 * in again, and Lodestar's rules walk them pending → active (finality, churn and the activation delay:
 * active at epoch 12, 3 minutes at 2-second slots). Returns their pubkeys.
 */
export async function depositDemoValidators(opts: {
  cp: string;
  apiKey: string;
  executionUrl: string;
  /** Until when the provision job may take (the worker runs it in seconds). */
  deadline: number;
}): Promise<string[]> {
  const headers = { "api-key": opts.apiKey, "content-type": "application/json" };
  const created = await fetch(`${opts.cp}/api/provision`, {
    method: "POST",
    headers: { ...headers, "idempotency-key": DEMO_PROVISION_KEY },
    body: JSON.stringify({
      attributes: { withdrawalAddress: DEV_ACCOUNTS.user, validatorsCount: 2, batch: true },
    }),
  });
  const body = (await created.json()) as { result?: { provisionId: string } };
  if (!created.ok || !body.result)
    throw new Error(`the demo's provision answered ${created.status}: ${JSON.stringify(body)}`);
  const url = `${opts.cp}/api/validators?provisionId=${body.result.provisionId}`;
  let provision: ProvisionAnswer;
  for (;;) {
    provision = (await (await fetch(url, { headers })).json()) as ProvisionAnswer;
    if (provision.provisionStatus !== "IN_PROGRESS") break;
    if (Date.now() > opts.deadline) throw new Error("the demo's provision is still IN_PROGRESS");
    await new Promise((r) => setTimeout(r, 250));
  }
  if (provision.provisionStatus !== "CREATED")
    throw new Error(`the demo's provision is ${provision.provisionStatus}: ${provision.reason ?? ""}`);
  const transport = http(opts.executionUrl);
  const hash = await createWalletClient({ transport }).sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.user,
    to: provision.to,
    data: provision.depositInput,
    value: BigInt(provision.value),
  });
  // Mined by the next slot's block (a slot every 2 s; an offline proposer's slot mines nothing).
  const receipt = await createPublicClient({ transport }).waitForTransactionReceipt({
    hash,
    pollingInterval: 500,
    timeout: Math.max(10_000, opts.deadline - Date.now()),
  });
  if (receipt.status !== "success") throw new Error(`the demo's deposit ${hash} reverted`);
  return provision.results.map((r) => r.validatorAddress);
}
