import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { keccak256, Signature, toUtf8Bytes, verifyTypedData, Wallet, ZeroAddress } from "ethers";
import { createLedger } from "./state.ts";

/**
 * Simulated Hyperliquid node: `POST /info` and `POST /exchange` for the staking actions, with
 * Hyperliquid's response shapes. The signer is recovered the way Hyperliquid does it: the node rebuilds
 * the EIP-712 message with its *own* `hyperliquidChain` and the action's `signatureChainId`, so a wrong
 * chain, a tampered field or a wrong field order recovers some other address, which then "does not exist".
 * Recovery uses ethers here on purpose, independently of the control plane's noble-based code.
 */

export const DEVNET_VALIDATORS = [
  "0x5ac99df645f3414876c816caa18b2d234024b487",
  "0x000000000056f99d36b6f2e0c51fd41496bbacb8",
] as const;

/**
 * Written out here on purpose rather than imported from the builder: the simulated node stands for
 * Hyperliquid and verifies signatures against its own copy of the EIP-712 types, so a wrong field in the
 * builder fails the tests instead of being agreed with.
 */
const TYPES: Record<string, Record<string, { name: string; type: string }[]>> = {
  tokenDelegate: {
    "HyperliquidTransaction:TokenDelegate": [
      { name: "hyperliquidChain", type: "string" },
      { name: "validator", type: "address" },
      { name: "wei", type: "uint64" },
      { name: "isUndelegate", type: "bool" },
      { name: "nonce", type: "uint64" },
    ],
  },
  cDeposit: {
    "HyperliquidTransaction:CDeposit": [
      { name: "hyperliquidChain", type: "string" },
      { name: "wei", type: "uint64" },
      { name: "nonce", type: "uint64" },
    ],
  },
  cWithdraw: {
    "HyperliquidTransaction:CWithdraw": [
      { name: "hyperliquidChain", type: "string" },
      { name: "wei", type: "uint64" },
      { name: "nonce", type: "uint64" },
    ],
  },
};

/**
 * Demo wallets: throwaway test keys derived deterministically from a seed string (keccak256 of
 * "<seed>:<index>"), never PEM files and never funded anywhere real.
 */
export function demoWallets(count = 3, seed = "stake-platform/hyperliquid-devnet/demo") {
  return Array.from({ length: count }, (_, i) => {
    const wallet = new Wallet(keccak256(toUtf8Bytes(`${seed}:${i}`)));
    return { address: wallet.address.toLowerCase(), privateKey: wallet.privateKey, wallet };
  });
}

export interface HyperliquidDevnetOptions {
  port?: number;
  chain?: "Mainnet" | "Testnet";
  /** HYPE (in wei, 10^-8) given to each demo wallet's spot and staking accounts at start. */
  demoFunding?: { spot: bigint; staking: bigint };
  demoWalletCount?: number;
}

export interface LoggedRequest {
  path: string;
  body: unknown;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const HEX = /^0x[0-9a-fA-F]{1,64}$/;

export async function startHyperliquidDevnet(opts: HyperliquidDevnetOptions = {}) {
  const chain = opts.chain ?? "Testnet";
  let offset = 0;
  let stalled = false;
  let historyLagMs = 0;
  const now = () => Date.now() + offset;
  const ledger = createLedger({ now, validators: DEVNET_VALIDATORS });
  const requests: LoggedRequest[] = [];
  const wallets = demoWallets(opts.demoWalletCount ?? 3);
  const funding = opts.demoFunding ?? { spot: 1_000n * 10n ** 8n, staking: 100n * 10n ** 8n };
  for (const w of wallets) ledger.fund(w.address, funding);

  function info(body: Record<string, unknown>): unknown {
    const user =
      typeof body.user === "string" && ADDRESS.test(body.user) ? body.user.toLowerCase() : undefined;
    switch (body.type) {
      case "validatorSummaries":
        return ledger.validatorSummaries();
      case "spotClearinghouseState":
        return user ? ledger.spotState(user) : undefined;
      case "delegatorSummary":
        return user ? ledger.summary(user) : undefined;
      case "delegations":
        return user ? ledger.delegations(user) : undefined;
      case "delegatorRewards":
        return user ? ledger.rewards(user) : undefined;
      case "delegatorHistory":
        return user ? ledger.history(user).filter((e) => e.time + historyLagMs <= now()) : undefined;
    }
    return undefined;
  }

  function exchange(body: Record<string, unknown>): unknown {
    const action = body.action as Record<string, unknown> | undefined;
    const sig = body.signature as Record<string, unknown> | undefined;
    if (
      !action ||
      typeof action !== "object" ||
      typeof action.type !== "string" ||
      !TYPES[action.type] ||
      typeof action.signatureChainId !== "string" ||
      !/^0x[0-9a-fA-F]+$/.test(action.signatureChainId) ||
      !Number.isSafeInteger(action.wei) ||
      !Number.isSafeInteger(action.nonce) ||
      !Number.isSafeInteger(body.nonce) ||
      !sig ||
      typeof sig.r !== "string" ||
      typeof sig.s !== "string" ||
      !HEX.test(sig.r) ||
      !HEX.test(sig.s) ||
      ![0, 1, 27, 28].includes(sig.v as number)
    ) {
      return undefined;
    }
    if (body.nonce !== action.nonce)
      return { status: "err", response: "Invalid nonce: does not match action" };
    let signer: string;
    try {
      const pad = (h: string) => `0x${h.slice(2).padStart(64, "0")}`;
      const v = (sig.v as number) < 27 ? (sig.v as number) + 27 : (sig.v as number);
      const signature = Signature.from({ r: pad(sig.r), s: pad(sig.s), v });
      const domain = {
        name: "HyperliquidSignTransaction",
        version: "1",
        chainId: Number.parseInt(action.signatureChainId, 16),
        verifyingContract: ZeroAddress,
      };
      const message = { ...action, hyperliquidChain: chain };
      signer = verifyTypedData(domain, TYPES[action.type] ?? {}, message, signature).toLowerCase();
    } catch {
      return { status: "err", response: "Invalid signature" };
    }
    const error = ledger.apply(
      signer,
      action as { type: string; wei: number; nonce: number; validator?: string; isUndelegate?: boolean },
      body,
    );
    return error ? { status: "err", response: error } : { status: "ok", response: { type: "default" } };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (stalled) return; // never answers: lets tests prove the client times out instead of hanging
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
    };
    if (req.method !== "POST" || (req.url !== "/info" && req.url !== "/exchange")) return send(404, "null");
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(400, "null");
    }
    requests.push({ path: req.url, body });
    const out =
      body && typeof body === "object"
        ? (req.url === "/info" ? info : exchange)(body as Record<string, unknown>)
        : undefined;
    // Hyperliquid answers bodies it cannot deserialise with a plain-text 422.
    if (out === undefined) return send(422, "Failed to deserialize the JSON body into the target type");
    send(200, out);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    validators: DEVNET_VALIDATORS,
    wallets,
    /** Every parsed request, in order: tests assert on what was (not) relayed. */
    requests,
    exchangeRequests: () => requests.filter((r) => r.path === "/exchange"),
    now,
    advanceTime(ms: number) {
      offset += ms;
    },
    fund: ledger.fund,
    /** Indexing delay: history entries show in delegatorHistory only `ms` after they happened. */
    setHistoryLag(ms: number) {
      historyLagMs = ms;
    },
    stall(on: boolean) {
      stalled = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type HyperliquidDevnet = Awaited<ReturnType<typeof startHyperliquidDevnet>>;
