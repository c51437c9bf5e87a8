import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { Address } from "viem";
import { type ChainValidator, createChain, FAR_FUTURE } from "./chain.ts";
import { type ExecutionNode, startExecutionNode } from "./execution.ts";
import { DEVNET_ELECTRA, type SignedVoluntaryExit, voluntaryExitDomain } from "./exits.ts";
import { beaconViews } from "./views.ts";

/**
 * A simulated beacon node speaking the standard Beacon API (ethereum/beacon-APIs) over the simulated chain
 * of chain.ts: genesis, spec, headers, blocks (v2: every Deneb/Electra body field, `Eth-Consensus-Version`),
 * finality checkpoints, validators (GET with ids, POST with {ids, statuses}, statuses or their classes),
 * balances, pending deposits and pending consolidations (with `version`; 400 before Electra), for `head`,
 * `finalized`, `justified`, `genesis`, a slot or a root (400 for an id that is none of these). Its answers
 * parse with Lodestar's typed client (tests/beacon-data/real-nodes.test.ts). With `execution: true` it
 * starts anvil beside it (execution.ts) and every payload is a real block.
 */
export interface SimValidator {
  pubkey: string;
  withdrawal_credentials: string;
  /** Gwei. */
  balance: bigint;
  status: string;
}

/** The real networks' constants (docs/chains/ethereum.md §1.4), so exits signed here verify there too. */
const NETWORKS = {
  mainnet: {
    forkVersion: "0x00000000",
    capellaForkVersion: "0x03000000",
    genesisValidatorsRoot: "0x4b363db94e286120d76eb905340fdd4e54bfe9f06bf33ff6cf5ad27f511bfe95",
    chainId: 1,
  },
  hoodi: {
    forkVersion: "0x10000910",
    capellaForkVersion: "0x40000910",
    genesisValidatorsRoot: "0x212f13fc4df078b6cb7db228f1c8307566dcecf900867401a92023d7ba99cb5f",
    chainId: 560048,
  },
} as const;

export interface BeaconDevnetOptions {
  port?: number;
  network?: "mainnet" | "hoodi";
  /** Start anvil as the execution node (deposit contract, EIP-7002/7251 predeploys). */
  execution?: boolean;
  /** anvil's port (default: any free one). */
  executionPort?: number;
  slotsPerEpoch?: number;
  secondsPerSlot?: number;
  backgroundValidators?: number;
  /**
   * Produce each slot at its time, genesis + slot × secondsPerSlot (npm start), skipping the slots whose
   * time passed while the node was busy; tests drive slots themselves.
   */
  realTime?: boolean;
  /** Share of builder (MEV-boost) blocks, default 0.4 (chain.ts). */
  builderShare?: number;
  /** First Electra epoch, default 0 (chain.ts). */
  electraForkEpoch?: number;
}

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });

export async function startBeaconDevnet(opts: BeaconDevnetOptions = {}) {
  const net = NETWORKS[opts.network ?? "hoodi"];
  const execution: ExecutionNode | undefined = opts.execution
    ? await startExecutionNode({
        chainId: net.chainId,
        ...(opts.executionPort ? { port: opts.executionPort } : {}),
      })
    : undefined;
  const latest = execution
    ? Number((await execution.public.getBlock()).timestamp)
    : Math.floor(Date.now() / 1000);
  const chain = createChain({
    slotsPerEpoch: opts.slotsPerEpoch ?? 4,
    secondsPerSlot: opts.secondsPerSlot ?? 12,
    genesisTime: latest + 1,
    backgroundValidators: opts.backgroundValidators ?? 0,
    exitDomain: voluntaryExitDomain(net.capellaForkVersion, net.genesisValidatorsRoot),
    ...(opts.builderShare !== undefined ? { builderShare: opts.builderShare } : {}),
    ...(opts.electraForkEpoch !== undefined ? { electraForkEpoch: opts.electraForkEpoch } : {}),
    ...(execution ? { execution } : {}),
  });
  const S = chain.slotsPerEpoch;

  const { view, slotOf, blockOf, body, header, checkpoint, zero } = beaconViews(chain);

  /** Requests served per path (tests count the node's round trips). */
  const requests = new Map<string, number>();
  /** Whether answers say `execution_optimistic` (a node whose execution client has not verified the head). */
  let optimistic = false;

  // Slots are produced one at a time (a slot's EL block is mined before the next starts).
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn);
    queue = run.catch(() => {});
    return run;
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const p = url.pathname;
    requests.set(p, (requests.get(p) ?? 0) + 1);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    };
    const notFound = (message = "Not found") => send(404, { code: 404, message });
    const badRequest = (message: string) => send(400, { code: 400, message });
    const finalized = (slot: number) => slot <= chain.finalizedEpoch() * S;
    const ok = (data: unknown, slot = chain.head, extra: { version?: string } = {}) =>
      send(
        200,
        { execution_optimistic: optimistic, finalized: finalized(slot), ...extra, data },
        extra.version ? { "eth-consensus-version": extra.version } : {},
      );
    try {
      if (p === "/eth/v1/beacon/genesis") {
        return ok({
          genesis_time: String(chain.slotTime(0)),
          genesis_validators_root: net.genesisValidatorsRoot,
          genesis_fork_version: net.forkVersion,
        });
      }
      if (p === "/eth/v1/config/spec") {
        return ok({
          GENESIS_FORK_VERSION: net.forkVersion,
          SECONDS_PER_SLOT: String(opts.secondsPerSlot ?? 12),
          SLOTS_PER_EPOCH: String(S),
          MAX_EFFECTIVE_BALANCE_ELECTRA: "2048000000000",
          MIN_ACTIVATION_BALANCE: "32000000000",
          ALTAIR_FORK_EPOCH: "0",
          BELLATRIX_FORK_EPOCH: "0",
          CAPELLA_FORK_EPOCH: "0",
          DENEB_FORK_EPOCH: "0",
          ELECTRA_FORK_EPOCH: String(chain.electraForkEpoch),
          FULU_FORK_EPOCH: String(FAR_FUTURE),
          DEPOSIT_CHAIN_ID: String(net.chainId),
          CAPELLA_FORK_VERSION: net.capellaForkVersion,
          SHARD_COMMITTEE_PERIOD: String(DEVNET_ELECTRA.SHARD_COMMITTEE_PERIOD),
          MIN_VALIDATOR_WITHDRAWABILITY_DELAY: String(DEVNET_ELECTRA.MIN_VALIDATOR_WITHDRAWABILITY_DELAY),
          MAX_SEED_LOOKAHEAD: String(DEVNET_ELECTRA.MAX_SEED_LOOKAHEAD),
          MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA: String(DEVNET_ELECTRA.MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA),
          MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT: String(
            DEVNET_ELECTRA.MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT,
          ),
          CHURN_LIMIT_QUOTIENT: String(DEVNET_ELECTRA.CHURN_LIMIT_QUOTIENT),
          EFFECTIVE_BALANCE_INCREMENT: "1000000000",
        });
      }
      if (p === "/eth/v1/config/deposit_contract") {
        return ok({ chain_id: String(net.chainId), address: "0x00000000219ab540356cbb839cbe05303d7705fa" });
      }
      // Not Beacon API: lets a driver in another process (the benchmark) produce slots.
      if (p === "/devnet/advance" && req.method === "POST") {
        const to = Number(url.searchParams.get("to_epoch"));
        await serial(async () => {
          while (chain.head < (to + 1) * S - 1) await chain.produceSlot();
        });
        return ok({ head: String(chain.head) });
      }
      if (p === "/devnet/execution") return ok({ url: execution?.url ?? null });
      // Beacon API: a SignedVoluntaryExit, checked as the next block would (400 with the reason), then pooled.
      if (p === "/eth/v1/beacon/pool/voluntary_exits" && req.method === "POST") {
        const exit = JSON.parse((await readBody(req)) || "{}") as SignedVoluntaryExit;
        if (!/^\d+$/.test(exit.message?.epoch ?? "") || !/^\d+$/.test(exit.message?.validator_index ?? ""))
          return send(400, { code: 400, message: "Invalid voluntary exit" });
        const refused = chain.submitVoluntaryExit(exit);
        if (refused) return send(400, { code: 400, message: `Invalid voluntary exit: ${refused}` });
        res.writeHead(200).end();
        return;
      }
      let m = /^\/eth\/v1\/beacon\/headers\/([^/]+)$/.exec(p);
      if (m) {
        const b = blockOf(m[1] ?? "");
        if (b === "invalid") return badRequest(`Invalid block ID: ${m[1]}`);
        return b ? ok(header(b), b.slot) : notFound("Block not found");
      }
      m = /^\/eth\/v2\/beacon\/blocks\/([^/]+)$/.exec(p);
      if (m) {
        const b = blockOf(m[1] ?? "");
        if (b === "invalid") return badRequest(`Invalid block ID: ${m[1]}`);
        if (!b) return notFound("Block not found");
        const message = {
          slot: String(b.slot),
          proposer_index: String(b.proposerIndex),
          parent_root: b.parentRoot,
          state_root: b.root,
          body: body(b),
        };
        return ok({ message, signature: zero(96) }, b.slot, { version: b.version });
      }
      m = /^\/eth\/v1\/beacon\/states\/([^/]+)\/([a-z_]+)(?:\/([^/]+))?$/.exec(p);
      if (!m) return notFound();
      const slot = slotOf(m[1] ?? "");
      if (slot === "invalid") return badRequest(`Invalid state ID: ${m[1]}`);
      const st = slot === undefined ? undefined : chain.stateAt(slot);
      if (slot === undefined || !st) return notFound("State not found");
      const electra = Math.floor(slot / S) >= chain.electraForkEpoch;
      const what = m[2];
      let byPubkey: Map<string, number> | undefined;
      const index = (id: string) => {
        if (/^\d+$/.test(id)) return Number(id);
        byPubkey ??= new Map(st.validators.map((v, i) => [v.pubkey, i]));
        return byPubkey.get(id.toLowerCase()) ?? -1;
      };
      if (what === "finality_checkpoints") {
        const f = chain.finalizedEpoch();
        return ok(
          {
            previous_justified: checkpoint(f),
            current_justified: checkpoint(f + 1),
            finalized: checkpoint(f),
          },
          slot,
        );
      }
      // A state before Electra has no pending queues: real nodes answer 400.
      if ((what === "pending_deposits" || what === "pending_consolidations") && !electra) {
        return badRequest(`Cannot use ${what} before the Electra fork (state ${m[1]})`);
      }
      if (what === "pending_deposits") {
        return ok(
          st.pending.map((d) => ({ ...d, amount: d.amount.toString(), slot: String(d.slot) })),
          slot,
          { version: "electra" },
        );
      }
      if (what === "pending_consolidations") {
        return ok(
          st.consolidations.map((c) => ({ source_index: String(c.source), target_index: String(c.target) })),
          slot,
          { version: "electra" },
        );
      }
      if (what === "pending_partial_withdrawals") {
        return ok(
          st.partials.map((w) => ({
            validator_index: String(w.index),
            amount: String(w.amount),
            withdrawable_epoch: String(w.withdrawableEpoch),
          })),
          slot,
        );
      }
      if (what === "validators" && m[3]) {
        const i = index(m[3]);
        const v = st.validators[i] && view(st.validators[i], i);
        return v ? ok(v, slot) : notFound("Validator not found");
      }
      if (what === "validators" || what === "validator_balances") {
        let ids: string[] = url.searchParams.getAll("id").flatMap((s) => s.split(","));
        let statuses: string[] = url.searchParams.getAll("status").flatMap((s) => s.split(","));
        if (req.method === "POST") {
          const body = JSON.parse((await readBody(req)) || "{}") as
            | { ids?: string[]; statuses?: string[] }
            | string[];
          ids = Array.isArray(body) ? body : (body.ids ?? []);
          statuses = Array.isArray(body) ? [] : (body.statuses ?? []);
        }
        let found = ids.length
          ? ids
              .map(index)
              .filter((i) => i >= 0 && i < st.validators.length)
              .map((i) => view(st.validators[i] as ChainValidator, i))
          : st.validators.map(view);
        // A status or its general class (`active` for active_ongoing, active_exiting and active_slashed).
        if (statuses.length) {
          found = found.filter(
            (v) => v && statuses.some((s) => v.status === s || v.status.startsWith(`${s}_`)),
          );
        }
        const data = found.filter((v) => v !== undefined);
        return ok(
          what === "validators" ? data : data.map((v) => ({ index: v.index, balance: v.balance })),
          slot,
        );
      }
      return notFound();
    } catch (err) {
      send(500, { code: 500, message: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  // As a real chain: slot n is at genesis + n × SECONDS_PER_SLOT, and one whose time passed before the node
  // could make it stays empty. A timer that made the next slot after each one ran late by every pause
  // (14–38 s at load 2), so the chain's times fell behind the clock that stamps the platform's own steps.
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  if (opts.realTime) {
    const secondsPerSlot = opts.secondsPerSlot ?? 12;
    const clockSlot = () => Math.floor((Date.now() / 1000 - chain.slotTime(0)) / secondsPerSlot);
    const onTime = async () => {
      const now = clockSlot();
      while (chain.head < now - 1) await chain.produceSlot({ skip: true });
      if (chain.head < now) await chain.produceSlot();
    };
    const tick = () => {
      if (closed) return;
      const next = chain.slotTime(chain.head + 1) * 1000 - Date.now();
      timer = setTimeout(() => void serial(onTime).finally(tick), Math.max(0, next));
    };
    tick();
  }

  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    execution,
    slotsPerEpoch: S,
    requests,
    setOptimistic(on: boolean) {
      optimistic = on;
    },
    /** Produces `n` slots (optionally with a chosen proposer, a builder block or a local one, or skipped). */
    advance: (n = 1, o: { proposer?: string; skip?: boolean; builder?: boolean } = {}) =>
      serial(async () => {
        for (let i = 0; i < n; i++) await chain.produceSlot(o);
      }),
    /** Produces slots up to the last slot of `epoch`. */
    advanceToEndOfEpoch: (epoch: number) =>
      serial(async () => {
        while (chain.head < (epoch + 1) * S - 1) await chain.produceSlot();
      }),
    reorg: (depth: number) => serial(() => chain.reorg(depth)),
    setFeeRecipient: (pubkey: string, address: Address) => chain.setFeeRecipient(pubkey, address),
    requestExit: (pubkey: string) => chain.requestExit(pubkey),
    /** Puts a validator in the registry (or updates it). */
    setValidator: (v: SimValidator) => chain.setValidator(v),
    addPendingDeposit(pubkey: string, amountGwei: bigint, withdrawalCredentials = `0x${"00".repeat(32)}`) {
      chain.addPendingDeposit({
        pubkey,
        withdrawal_credentials: withdrawalCredentials,
        amount: amountGwei,
        signature: `0x${"00".repeat(96)}`,
      });
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await queue;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await execution?.close();
    },
  };
}

export { FAR_FUTURE };
export type BeaconDevnet = Awaited<ReturnType<typeof startBeaconDevnet>>;
