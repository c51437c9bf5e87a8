import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { base58 } from "@scure/base";
import { type ChainOptions, type LoggedTx, SolanaChain, STAKE_PROGRAM } from "./chain.ts";
import { createSignaturePubSub } from "./pubsub.ts";

/** Slots the recent status cache covers (Solana's MAX_RECENT_BLOCKHASHES), searched without searchTransactionHistory. */
const STATUS_CACHE_SLOTS = 300;
/** Most signatures one getSignatureStatuses call may ask about (the RPC's own limit). */
const MAX_STATUS_SIGNATURES = 256;

export interface SolanaDevnetOptions extends ChainOptions {
  port?: number;
  /**
   * Also serve the PubSub websocket on this port (a real validator's is the RPC port + 1, where
   * `@solana/web3.js` looks by default); it is always served on the RPC port too.
   */
  wsPort?: number;
  /** Close an epoch every this many milliseconds (`npm start`); unset: only `advanceEpochs` moves the clock. */
  epochMs?: number;
}

export interface SolanaDevnet {
  url: string;
  /** PubSub websocket on the RPC port (`signatureSubscribe`); pass as `wsEndpoint` to `@solana/web3.js`. */
  wsUrl: string;
  /** Base URL of the Jito-style MEV API (`GET {mevUrl}/api/v1/staker_rewards`). */
  mevUrl: string;
  chain: SolanaChain;
  advanceEpochs(n?: number): void;
  airdrop(pubkey: string, lamports: bigint): void;
  /** JSON-RPC calls served, per method (lets tests prove caching). */
  calls: Map<string, number>;
  close(): Promise<void>;
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Params = unknown[];
const str = (v: unknown, what: string): string => {
  if (typeof v !== "string") throw new RpcError(-32602, `Invalid params: ${what}`);
  return v;
};

/**
 * Simulated Solana node: Solana JSON-RPC over HTTP on loopback for the methods the stake-account area uses,
 * executed by LiteSVM (see chain.ts), plus the MEV staker-rewards API on the same port.
 */
export async function startSolanaDevnet(opts: SolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const chain = new SolanaChain(opts);
  const calls = new Map<string, number>();
  const ctx = () => ({ context: { slot: Number(chain.slot), apiVersion: "2.3.0" } });
  const account = (address: string) => {
    const a = chain.svm.getAccount(address as never);
    // A real node reports an account with no lamports as absent (LiteSVM hands back an empty default).
    if (!a.exists || BigInt(a.lamports) === 0n) return null;
    return {
      lamports: Number(a.lamports),
      owner: a.programAddress,
      data: [Buffer.from(a.data).toString("base64"), "base64"],
      executable: a.executable,
      rentEpoch: 0,
      space: a.data.length,
    };
  };

  const methods: Record<string, (p: Params) => unknown> = {
    getHealth: () => "ok",
    getSlot: () => Number(chain.slot),
    getBlockHeight: () => Number(chain.slot),
    getLatestBlockhash: () => ({
      ...ctx(),
      value: { blockhash: chain.svm.latestBlockhash(), lastValidBlockHeight: Number(chain.slot) + 150 },
    }),
    getMinimumBalanceForRentExemption: (p) =>
      Number(chain.svm.minimumBalanceForRentExemption(BigInt(Number(p[0] ?? 0)))),
    getStakeMinimumDelegation: () => ({ ...ctx(), value: 1_000_000_000 }),
    getBalance: (p) => ({
      ...ctx(),
      value: Number(chain.svm.getBalance(str(p[0], "pubkey") as never) ?? 0n),
    }),
    getAccountInfo: (p) => ({ ...ctx(), value: account(str(p[0], "pubkey")) }),
    getMultipleAccounts: (p) => {
      const keys = p[0];
      if (!Array.isArray(keys) || keys.length > 100) throw new RpcError(-32602, "Invalid params: pubkeys");
      return { ...ctx(), value: keys.map((k) => account(str(k, "pubkey"))) };
    },
    getProgramAccounts: (p) => {
      const program = str(p[0], "program");
      const filters = ((p[1] as { filters?: unknown[] } | undefined)?.filters ?? []) as {
        dataSize?: number;
        memcmp?: { offset: number; bytes: string };
      }[];
      const list = program === STAKE_PROGRAM ? chain.stakeAccounts() : [];
      return list
        .filter((a) =>
          filters.every((f) => {
            if (f.dataSize !== undefined) return a.data.length === f.dataSize;
            if (f.memcmp) {
              const want = base58.decode(f.memcmp.bytes);
              const got = a.data.subarray(f.memcmp.offset, f.memcmp.offset + want.length);
              return Buffer.from(got).equals(Buffer.from(want));
            }
            return true;
          }),
        )
        .map((a) => ({
          pubkey: a.pubkey,
          account: {
            lamports: Number(a.lamports),
            owner: STAKE_PROGRAM,
            data: [Buffer.from(a.data).toString("base64"), "base64"],
            executable: false,
            rentEpoch: 0,
            space: a.data.length,
          },
        }));
    },
    // A real cluster's is its genesis block's hash: a devnet started anew is another cluster.
    getGenesisHash: () =>
      base58.encode(createHash("sha256").update(`solana-devnet-genesis:${chain.genesisUnix}`).digest()),
    getEpochInfo: () => ({
      absoluteSlot: Number(chain.slot),
      blockHeight: Number(chain.slot),
      epoch: Number(chain.epoch),
      slotIndex: Number(chain.slot % chain.slotsPerEpoch),
      slotsInEpoch: Number(chain.slotsPerEpoch),
      transactionCount: chain.txs.length,
    }),
    getEpochSchedule: () => ({
      slotsPerEpoch: Number(chain.slotsPerEpoch),
      leaderScheduleSlotOffset: Number(chain.slotsPerEpoch),
      warmup: false,
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
    }),
    getBlockTime: (p) => {
      const slot = BigInt(Number(p[0]));
      if (slot > chain.slot) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return chain.blockTime(slot);
    },
    getInflationReward: (p) => {
      const keys = p[0];
      if (!Array.isArray(keys)) throw new RpcError(-32602, "Invalid params: addresses");
      const given = (p[1] as { epoch?: number } | undefined)?.epoch;
      const epoch = given ?? Number(chain.epoch) - 1;
      if (epoch >= Number(chain.epoch))
        throw new RpcError(-32004, `Epoch ${epoch} rewards not yet available`);
      return keys.map((k) => chain.inflation.get(`${k}:${epoch}`) ?? null);
    },
    getVoteAccounts: () => ({
      current: chain.validators.map((v) => ({
        votePubkey: v.vote,
        nodePubkey: v.identity,
        commission: v.commission,
        activatedStake: 0,
        epochVoteAccount: true,
        // [epoch, credits, previous credits] per recent epoch; this cluster keeps no vote credits.
        epochCredits: [],
        lastVote: Number(chain.slot),
        rootSlot: Number(chain.slot),
      })),
      delinquent: [],
    }),
    getSignaturesForAddress: (p) => {
      const addr = str(p[0], "address");
      const o = (p[1] ?? {}) as { limit?: number; before?: string; until?: string };
      const limit = Math.min(o.limit ?? 1000, 1000);
      const all = chain.txs.filter((t) => t.keys.includes(addr)).reverse();
      let start = 0;
      if (o.before) start = all.findIndex((t) => t.signature === o.before) + 1;
      const out = [];
      for (const t of all.slice(start)) {
        if (t.signature === o.until || out.length >= limit) break;
        out.push({
          signature: t.signature,
          slot: t.slot,
          err: null,
          memo: null,
          blockTime: t.blockTime,
          confirmationStatus: "finalized",
        });
      }
      return out;
    },
    getTransaction: (p) => {
      const sig = str(p[0], "signature");
      const t = chain.txs.find((x) => x.signature === sig);
      if (!t) return null;
      return {
        slot: t.slot,
        blockTime: t.blockTime,
        transaction: [Buffer.from(t.wire).toString("base64"), "base64"],
        meta: { err: null, fee: t.fee },
      };
    },
    getSignatureStatuses: (p) => {
      const sigs = p[0];
      if (!Array.isArray(sigs)) throw new RpcError(-32602, "Invalid params: signatures");
      if (sigs.length > MAX_STATUS_SIGNATURES)
        throw new RpcError(-32602, `Too many inputs provided; max ${MAX_STATUS_SIGNATURES}`);
      const config = p[1] as { searchTransactionHistory?: unknown } | undefined;
      // Agave 2.x (the apiVersion this node reports) rejects a config object without the field.
      if (config !== undefined && typeof config?.searchTransactionHistory !== "boolean")
        throw new RpcError(-32602, "Invalid params: missing field `searchTransactionHistory`.");
      const everything = config?.searchTransactionHistory === true;
      return {
        ...ctx(),
        value: sigs.map((sig) => {
          const t = txBySignature(str(sig, "signature"));
          if (!t || (!everything && Number(chain.slot) - t.slot > STATUS_CACHE_SLOTS)) return null;
          return signatureStatus(t);
        }),
      };
    },
    getFeeForMessage: (p) => {
      const msg = Buffer.from(str(p[0], "message"), "base64");
      return { ...ctx(), value: 5000 * (msg[0] ?? 0) };
    },
    sendTransaction: (p) => {
      const wire = Buffer.from(str(p[0], "transaction"), "base64");
      try {
        const signature = chain.submit(wire);
        notifySignature(signature);
        return signature;
      } catch (e) {
        throw new RpcError(-32002, `Transaction simulation failed: ${(e as Error).message}`);
      }
    },
    requestAirdrop: (p) => {
      chain.airdrop(str(p[0], "pubkey"), BigInt(Number(p[1])));
      return "airdrop";
    },
  };

  const txBySignature = (sig: string) => chain.txs.find((t) => t.signature === sig);
  // Every executed transaction is final at once: the simulated cluster has one validator and no forks
  // (getSignaturesForAddress says "finalized" too). A failed one is never logged, so its status is null.
  const signatureStatus = (t: LoggedTx) => ({
    slot: t.slot,
    confirmations: null,
    err: null,
    status: { Ok: null },
    confirmationStatus: "finalized",
  });

  const pubsub = createSignaturePubSub({ context: ctx, executed: (sig) => txBySignature(sig) !== undefined });
  const { notifySignature, acceptUpgrades } = pubsub;

  const rpc = (body: { id?: unknown; method?: unknown; params?: unknown }) => {
    const id = body.id ?? null;
    try {
      const fn = typeof body.method === "string" ? methods[body.method] : undefined;
      if (!fn) throw new RpcError(-32601, "Method not found");
      calls.set(body.method as string, (calls.get(body.method as string) ?? 0) + 1);
      return { jsonrpc: "2.0", id, result: fn(Array.isArray(body.params) ? body.params : []) };
    } catch (e) {
      const err = e instanceof RpcError ? e : new RpcError(-32603, (e as Error).message);
      return { jsonrpc: "2.0", id, error: { code: err.code, message: err.message } };
    }
  };

  const mevApi = (url: URL) => {
    const q = url.searchParams;
    const num = (k: string) => (q.get(k) === null ? undefined : Number(q.get(k)));
    const epoch = num("epoch");
    const page = Math.max(1, num("page") ?? 1);
    const limit = Math.min(10_000, num("limit") ?? 100);
    const rows = chain.mev.filter(
      (r) =>
        (epoch === undefined || r.epoch === epoch) &&
        (!q.get("stake_authority") || r.stake_authority === q.get("stake_authority")) &&
        (!q.get("validator_vote_account") || r.validator_vote_account === q.get("validator_vote_account")) &&
        (!q.get("claimant") || r.claimant === q.get("claimant")),
    );
    return { rewards: rows.slice((page - 1) * limit, page * limit), total_count: rows.length };
  };

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.method === "GET" && url.pathname === "/api/v1/staker_rewards") return send(200, mevApi(url));
    if (req.method === "GET" && url.pathname === "/health") return send(200, "ok");
    if (req.method !== "POST") return send(404, { error: "not found" });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return send(200, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    }
    send(200, Array.isArray(body) ? body.map(rpc) : rpc(body as never));
  };

  const server = createServer((req, res) => {
    handler(req, res).catch((e) => {
      res.writeHead(500);
      res.end(String(e));
    });
  });
  const servers = [server];
  if (opts.wsPort !== undefined) servers.push(createServer((_req, res) => res.writeHead(426).end()));
  servers.forEach(acceptUpgrades);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  if (servers[1]) {
    const ws = servers[1];
    await new Promise<void>((resolve) => ws.listen(opts.wsPort, "127.0.0.1", resolve));
  }
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const timer = opts.epochMs ? setInterval(() => chain.advanceEpochs(1), opts.epochMs) : undefined;
  timer?.unref();
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}`,
    mevUrl: url,
    chain,
    calls,
    advanceEpochs: (n = 1) => chain.advanceEpochs(n),
    airdrop: (pubkey, lamports) => chain.airdrop(pubkey, lamports),
    close: async () => {
      clearInterval(timer);
      pubsub.terminate();
      await Promise.all(
        servers.map(
          (srv) =>
            new Promise<void>((resolve, reject) => {
              srv.closeAllConnections();
              if (!srv.listening) return resolve();
              srv.close((e) => (e ? reject(e) : resolve()));
            }),
        ),
      );
    },
  };
}
