import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** A simulated beacon node: just the beacon-APIs endpoints the platform reads, over in-memory state. */
export interface SimValidator {
  pubkey: string;
  withdrawal_credentials: string;
  /** Gwei. */
  balance: bigint;
  status: string;
}

const NETWORKS = {
  mainnet: { forkVersion: "0x00000000", genesisTime: "1606824023", chainId: "1" },
  hoodi: { forkVersion: "0x10000910", genesisTime: "1742213400", chainId: "560048" },
} as const;

export async function startBeaconDevnet(opts: { port?: number; network?: "mainnet" | "hoodi" } = {}) {
  const net = NETWORKS[opts.network ?? "hoodi"];
  const validators: SimValidator[] = [];
  const pending: {
    pubkey: string;
    withdrawal_credentials: string;
    amount: bigint;
    signature: string;
    slot: string;
  }[] = [];

  const view = (v: SimValidator, index: number) => ({
    index: String(index),
    balance: v.balance.toString(),
    status: v.status,
    validator: {
      pubkey: v.pubkey,
      withdrawal_credentials: v.withdrawal_credentials,
      effective_balance: (v.balance - (v.balance % 1_000_000_000n)).toString(),
      slashed: false,
      activation_eligibility_epoch: "0",
      activation_epoch: v.status.startsWith("pending") ? "18446744073709551615" : "0",
      exit_epoch: "18446744073709551615",
      withdrawable_epoch: "18446744073709551615",
    },
  });
  const find = (id: string) =>
    /^\d+$/.test(id) ? Number(id) : validators.findIndex((v) => v.pubkey.toLowerCase() === id.toLowerCase());

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    const ok = (data: unknown) => send(200, { execution_optimistic: false, finalized: false, data });
    const p = url.pathname;
    if (p === "/eth/v1/beacon/genesis") {
      return ok({
        genesis_time: net.genesisTime,
        genesis_validators_root: `0x${"00".repeat(32)}`,
        genesis_fork_version: net.forkVersion,
      });
    }
    if (p === "/eth/v1/config/spec") {
      return ok({
        GENESIS_FORK_VERSION: net.forkVersion,
        SECONDS_PER_SLOT: "12",
        SLOTS_PER_EPOCH: "32",
        MAX_EFFECTIVE_BALANCE_ELECTRA: "2048000000000",
        MIN_ACTIVATION_BALANCE: "32000000000",
        DEPOSIT_CHAIN_ID: net.chainId,
      });
    }
    if (p === "/eth/v1/config/deposit_contract") {
      return ok({ chain_id: net.chainId, address: "0x00000000219ab540356cbb839cbe05303d7705fa" });
    }
    const m = /^\/eth\/v1\/beacon\/states\/[^/]+\/validators\/([^/]+)$/.exec(p);
    if (m) {
      const i = find(m[1] ?? "");
      const v = validators[i];
      return v ? ok(view(v, i)) : send(404, { code: 404, message: "Validator not found" });
    }
    if (/^\/eth\/v1\/beacon\/states\/[^/]+\/validators$/.test(p)) {
      const ids = url.searchParams.getAll("id").flatMap((s) => s.split(","));
      const all = validators.map(view);
      return ok(
        ids.length
          ? ids
              .map(find)
              .filter((i) => i >= 0)
              .map((i) => all[i])
          : all,
      );
    }
    if (/^\/eth\/v1\/beacon\/states\/[^/]+\/validator_balances$/.test(p)) {
      return ok(validators.map((v, i) => ({ index: String(i), balance: v.balance.toString() })));
    }
    if (/^\/eth\/v1\/beacon\/states\/[^/]+\/pending_deposits$/.test(p)) {
      return ok(pending.map((d) => ({ ...d, amount: d.amount.toString() })));
    }
    send(404, { code: 404, message: "Not found" });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Puts a validator in the registry (or updates it). */
    setValidator(v: SimValidator) {
      const i = find(v.pubkey);
      if (i >= 0) validators[i] = v;
      else validators.push(v);
    },
    addPendingDeposit(pubkey: string, amountGwei: bigint, withdrawalCredentials = `0x${"00".repeat(32)}`) {
      pending.push({
        pubkey,
        withdrawal_credentials: withdrawalCredentials,
        amount: amountGwei,
        signature: `0x${"00".repeat(96)}`,
        slot: "0",
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type BeaconDevnet = Awaited<ReturnType<typeof startBeaconDevnet>>;
