import { Signature, type Wallet } from "ethers";
import request from "supertest";
import { type HyperliquidDevnet, startHyperliquidDevnet } from "../../devnet/hyperliquid/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

export type Network = "mainnet" | "testnet";

/**
 * One simulated Hyperliquid node for `network` plus the real control plane pointed at it, and an approved
 * organisation whose hyperliquid scope lists exactly one delegator: the devnet's first demo wallet.
 */
export async function startDelegationStack(network: Network, env: Record<string, string> = {}) {
  const devnet = await startHyperliquidDevnet({ chain: network === "mainnet" ? "Mainnet" : "Testnet" });
  const h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "hyperliquid-delegation",
    NETWORK: network,
    HYPERLIQUID_API_URL: devnet.url,
    HYPERLIQUID_VALIDATOR_ADDRESS: devnet.validators[0],
    HYPERLIQUID_TIMEOUT_MS: "1000",
    ...env,
  });
  const [inScope, outOfScope] = devnet.wallets;
  if (!inScope || !outOfScope) throw new Error("devnet has too few demo wallets");
  const apiKey = await delegationOrgKey(h, [inScope.address]);
  return {
    devnet,
    h,
    apiKey,
    inScope,
    outOfScope,
    async close() {
      await h.close();
      await devnet.close();
    },
  };
}

/** An approved organisation whose hyperliquid scope lists exactly `delegators`; returns its API key. */
export async function delegationOrgKey(h: ControlPlaneHarness, delegators: string[]): Promise<string> {
  const scope = { hyperliquid: { validator_addresses: [], delegator_addresses: delegators } };
  return (await makeOrganisation(h.db, { scope })).apiKey;
}

export interface UnsignedTx {
  action: Record<string, unknown> & { nonce: number };
  domain: Record<string, unknown>;
  types: Record<string, { name: string; type: string }[]>;
  primaryType: string;
  nonce: number;
}

export const decodeUnsigned = (b64: string): UnsignedTx =>
  JSON.parse(Buffer.from(b64, "base64").toString("utf8"));

/** The spec's client workflow, step by step, as a wallet owner would run it with ethers v6. */
export async function signUnsigned(
  unsigned: UnsignedTx,
  wallet: Wallet,
  action = unsigned.action,
): Promise<string> {
  const sig = Signature.from(await wallet.signTypedData(unsigned.domain, unsigned.types, unsigned.action));
  const signed = { action, nonce: unsigned.nonce, signature: { r: sig.r, s: sig.s, v: sig.v } };
  return Buffer.from(JSON.stringify(signed)).toString("base64");
}

export function api(stack: { h: ControlPlaneHarness; apiKey: string }) {
  return {
    prepare: (op: string, body: unknown) =>
      request(stack.h.app)
        .post(`/api/v1/staking/${op}`)
        .set("api-key", stack.apiKey)
        .send(body as object),
    broadcast: (signedTransaction: unknown) =>
      request(stack.h.app)
        .post("/api/v1/staking/broadcast")
        .set("api-key", stack.apiKey)
        .send({ signedTransaction }),
    balance: (address: string) =>
      request(stack.h.app)
        .get("/api/v1/staking/balance")
        .query({ delegatorAddress: address })
        .set("api-key", stack.apiKey),
  };
}

export type DelegationStack = Awaited<ReturnType<typeof startDelegationStack>>;
export type { HyperliquidDevnet };
