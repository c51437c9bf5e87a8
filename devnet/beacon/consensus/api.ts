import "./preset.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import { chainConfigToJson } from "@lodestar/config";
import { activePreset, presetToJson, SLOTS_PER_EPOCH } from "@lodestar/params";
import {
  type CachedBeaconStateElectra,
  computeEpochAtSlot,
  computeStartSlotAtEpoch,
  VoluntaryExitValidity,
} from "@lodestar/state-transition";
import { type phase0, rewards, ssz } from "@lodestar/types";
import type { ConsensusChain } from "./chain.ts";
import { type DevnetSignedBlock, type DevnetState, isElectra, typesAt } from "./fork.ts";

/**
 * The Beacon API over the consensus devnet's chain (ethereum/beacon-APIs), every object serialised by
 * `@lodestar/types`: genesis, spec, headers, blocks (v2), a state's fork, finality checkpoints, validators
 * (GET with ids and statuses, POST), balances, the Electra pending queues, the voluntary-exit pool, and the
 * three rewards endpoints from Lodestar's own reward accounting. Each block and state answers in its own fork (Deneb's or
 * Electra's types, `version`, `Eth-Consensus-Version`); a state before Electra has no pending queues, and
 * its queue endpoints answer 400 as Lodestar's do. Devnet routes beside them (our addition):
 * `POST /devnet/slash/{index}` (the validator signs two blocks for one slot; the next block slashes it),
 * `POST /devnet/offline/{index}?offline=true|false`, `POST /devnet/advance?to_epoch=E`,
 * `GET /devnet/execution` (the execution node's URL) and `GET /devnet/served` (time and bytes per answer).
 */

const FAR_FUTURE = Number.POSITIVE_INFINITY;

/** The Beacon API's validator status (its `ValidatorStatus` table) at `epoch`. */
export function validatorStatus(v: phase0.Validator, balance: number, epoch: number): string {
  if (v.activationEpoch > epoch) {
    return v.activationEligibilityEpoch === FAR_FUTURE ? "pending_initialized" : "pending_queued";
  }
  if (epoch < v.exitEpoch) {
    if (v.exitEpoch === FAR_FUTURE) return "active_ongoing";
    return v.slashed ? "active_slashed" : "active_exiting";
  }
  if (epoch < v.withdrawableEpoch) return v.slashed ? "exited_slashed" : "exited_unslashed";
  return balance > 0 ? "withdrawal_possible" : "withdrawal_done";
}

const readBody = async (req: IncomingMessage) => {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body ? (JSON.parse(body) as unknown) : undefined;
};

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const ROOT = /^0x[0-9a-f]{64}$/;

/** The Electra pending queues (EIP-7251, EIP-7002): what each endpoint reads from a state, as JSON. */
const PENDING_QUEUES = {
  pending_deposits: {
    name: "pending deposits",
    json: (st: CachedBeaconStateElectra) => ssz.electra.PendingDeposits.toJson(st.pendingDeposits.toValue()),
  },
  pending_partial_withdrawals: {
    name: "pending partial withdrawals",
    json: (st: CachedBeaconStateElectra) =>
      ssz.electra.PendingPartialWithdrawals.toJson(st.pendingPartialWithdrawals.toValue()),
  },
  pending_consolidations: {
    name: "pending consolidations",
    json: (st: CachedBeaconStateElectra) =>
      ssz.electra.PendingConsolidations.toJson(st.pendingConsolidations.toValue()),
  },
};
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;

/** What the node says beside its chain: whether its answers are optimistic, and the requests it served. */
export interface NodeState {
  /** `execution_optimistic` in every answer (a node whose execution client has not verified the head). */
  optimistic: boolean;
  /** Requests served per path (tests count a client's round trips). */
  requests: Map<string, number>;
  /** The execution node's JSON-RPC URL (`GET /devnet/execution`, for a driver in another process). */
  executionUrl?: string;
}

export function consensusApi(
  chain: ConsensusChain,
  node: NodeState = { optimistic: false, requests: new Map() },
) {
  const justifiedSlot = () => computeStartSlotAtEpoch(chain.headState().currentJustifiedCheckpoint.epoch);
  const finalizedSlot = () => computeStartSlotAtEpoch(chain.headState().finalizedCheckpoint.epoch);
  /** A slot for the standard's ids (`head`, `genesis`, `finalized`, `justified`, a slot, a block root). */
  const slotOf = (id: string): number => {
    if (id === "head") return chain.head;
    if (id === "genesis") return 0;
    if (id === "finalized") return finalizedSlot();
    if (id === "justified") return justifiedSlot();
    if (/^\d+$/.test(id)) {
      if (Number(id) > chain.head) throw new HttpError(404, "Not found");
      return Number(id);
    }
    if (ROOT.test(id.toLowerCase())) {
      const slot = chain.slotOfRoot(id);
      if (slot === undefined) throw new HttpError(404, "Not found");
      return slot;
    }
    throw new HttpError(400, `Invalid id: ${id}`);
  };
  const stateOf = (id: string): DevnetState => {
    const st = chain.stateAt(slotOf(id));
    if (!st) throw new HttpError(404, "State not found");
    return st;
  };
  const blockOf = (id: string): DevnetSignedBlock => {
    const slot = slotOf(id);
    const block = /^\d+$/.test(id) || id.startsWith("0x") ? chain.blockAt(slot) : chain.latestBlock(slot);
    if (!block) throw new HttpError(404, "Block not found");
    return block;
  };
  const envelope = (data: unknown, slot: number, version?: string) => ({
    ...(version ? { version } : {}),
    execution_optimistic: node.optimistic,
    finalized: slot <= finalizedSlot(),
    data,
  });
  const validatorIndex = (st: DevnetState, id: string) => {
    if (/^\d+$/.test(id)) return Number(id);
    const i = st.epochCtx.getValidatorIndex(Uint8Array.from(Buffer.from(id.replace(/^0x/, ""), "hex")));
    return i ?? -1;
  };
  const validatorsView = (st: DevnetState, ids: string[], statuses: string[]) => {
    const epoch = computeEpochAtSlot(st.slot);
    const all = st.validators.getAllReadonlyValues();
    const balances = st.balances.getAll();
    const indices = ids.length
      ? ids.map((id) => validatorIndex(st, id)).filter((i) => i >= 0 && i < all.length)
      : all.map((_, i) => i);
    return indices
      .map((i) => {
        const v = all[i] as phase0.Validator;
        const balance = balances[i] ?? 0;
        return {
          index: String(i),
          balance: String(balance),
          status: validatorStatus(v, balance, epoch),
          validator: ssz.phase0.Validator.toJson(v),
        };
      })
      .filter(
        (v) => !statuses.length || statuses.some((s) => v.status === s || v.status.startsWith(`${s}_`)),
      );
  };
  // Indices as numbers, pubkeys as hex: what Lodestar's reward functions take.
  const rewardIds = (body: unknown) =>
    Array.isArray(body) ? body.map((id) => (/^\d+$/.test(String(id)) ? Number(id) : String(id))) : [];

  /**
   * Every validator's attestation rewards of an epoch, computed once per state that pays them (a re-org's
   * state is another object) with each entry's JSON built once: the state transition's work on 10,000
   * validators is the slow part, and the same epoch is asked again (a backfill, another reader). A request
   * picks its validators' entries in index order, as Lodestar answers, with a set where Lodestar searches
   * its id list once per validator; ids naming no validator are left out, and none left means all.
   */
  const attestationAnswers = new WeakMap<object, Promise<{ ideal: string; totals: [number, string][] }>>();
  async function attestationRewards(epoch: number, ids: (number | string)[]) {
    const last = (epoch + 2) * SLOTS_PER_EPOCH - 1;
    const st = last <= chain.head ? chain.stateAt(last) : undefined;
    if (!st) return undefined;
    let all = attestationAnswers.get(st);
    if (!all) {
      all = chain.attestationRewards(epoch).then((r) => {
        if (!r) throw new HttpError(404, `Rewards for epoch ${epoch} are not available yet`);
        const json = rewards.AttestationsRewardsType.toJson(r) as {
          ideal_rewards: unknown[];
          total_rewards: { validator_index: string }[];
        };
        return {
          ideal: JSON.stringify(json.ideal_rewards),
          totals: json.total_rewards.map((t): [number, string] => [
            Number(t.validator_index),
            JSON.stringify(t),
          ]),
        };
      });
      attestationAnswers.set(st, all);
      all.catch(() => attestationAnswers.delete(st));
    }
    const { ideal, totals } = await all;
    const wanted = new Set(ids.map((id) => validatorIndex(st, String(id))).filter((i) => i >= 0));
    const picked = wanted.size ? totals.filter(([i]) => wanted.has(i)) : totals;
    return `{"ideal_rewards":${ideal},"total_rewards":[${picked.map(([, j]) => j).join(",")}]}`;
  }

  /** An answer: `body`, or with `data` (JSON already built) `body` is an envelope of null `data`. */
  async function route(
    req: IncomingMessage,
    url: URL,
  ): Promise<{ status?: number; body?: unknown; data?: string; version?: string }> {
    const p = url.pathname;
    const post = req.method === "POST";
    if (p === "/eth/v1/beacon/genesis") {
      const st = chain.stateAt(0) as DevnetState;
      return {
        body: envelope(
          {
            genesis_time: String(st.genesisTime),
            genesis_validators_root: hex(st.genesisValidatorsRoot),
            genesis_fork_version: hex(chain.config.GENESIS_FORK_VERSION),
          },
          0,
        ),
      };
    }
    if (p === "/eth/v1/config/spec") {
      return { body: { data: { ...chainConfigToJson(chain.config), ...presetToJson(activePreset) } } };
    }
    let m = /^\/devnet\/slash\/(\d+)$/.exec(p);
    if (m && post) {
      chain.slash(Number(m[1]));
      return { body: { data: { validator_index: m[1] } } };
    }
    // A driver in another process (a benchmark) makes slots up to an epoch's end.
    if (p === "/devnet/advance" && post) {
      const to = Number(url.searchParams.get("to_epoch"));
      if (!Number.isSafeInteger(to) || to < 0) throw new HttpError(400, "to_epoch must be an epoch");
      while (chain.head < (to + 1) * SLOTS_PER_EPOCH - 1) await chain.produceSlot();
      return { body: { data: { head: String(chain.head) } } };
    }
    if (p === "/devnet/execution") return { body: { data: { url: node.executionUrl ?? null } } };
    m = /^\/devnet\/offline\/(\d+)$/.exec(p);
    if (m && post) {
      chain.setOffline(Number(m[1]), url.searchParams.get("offline") !== "false");
      return { body: { data: { validator_index: m[1] } } };
    }
    if (p === "/eth/v1/beacon/pool/voluntary_exits" && post) {
      let exit: phase0.SignedVoluntaryExit;
      try {
        exit = ssz.phase0.SignedVoluntaryExit.fromJson(await readBody(req));
      } catch (err) {
        throw new HttpError(400, `Invalid voluntary exit: ${(err as Error).message}`);
      }
      const validity = chain.submitVoluntaryExit(exit);
      if (validity !== VoluntaryExitValidity.valid)
        throw new HttpError(400, `Invalid voluntary exit: ${validity}`);
      return {};
    }
    m = /^\/eth\/v1\/beacon\/headers\/([^/]+)$/.exec(p);
    if (m) {
      const block = blockOf(m[1] ?? "");
      const types = typesAt(chain.config, block.message.slot);
      const { body, ...header } = block.message;
      const bodyRoot = types.BeaconBlockBody.hashTreeRoot(body);
      return {
        body: envelope(
          {
            root: hex(types.BeaconBlock.hashTreeRoot(block.message)),
            canonical: true,
            header: ssz.phase0.SignedBeaconBlockHeader.toJson({
              message: { ...header, bodyRoot },
              signature: block.signature,
            }),
          },
          block.message.slot,
        ),
      };
    }
    m = /^\/eth\/v2\/beacon\/blocks\/([^/]+)$/.exec(p);
    if (m) {
      const block = blockOf(m[1] ?? "");
      const { slot } = block.message;
      const version = chain.config.getForkName(slot);
      const data = typesAt(chain.config, slot).SignedBeaconBlock.toJson(block);
      return { body: envelope(data, slot, version), version };
    }
    m = /^\/eth\/v1\/beacon\/rewards\/(attestations|blocks|sync_committee)\/([^/]+)$/.exec(p);
    if (m) {
      const [, kind, id = ""] = m;
      if (kind === "attestations") {
        if (!/^\d+$/.test(id)) throw new HttpError(400, `Invalid epoch: ${id}`);
        const data = await attestationRewards(Number(id), rewardIds(post ? await readBody(req) : undefined));
        if (!data) throw new HttpError(404, `Rewards for epoch ${id} are not available yet`);
        return { body: envelope(null, (Number(id) + 2) * SLOTS_PER_EPOCH - 1), data };
      }
      const slot = blockOf(id).message.slot;
      if (kind === "blocks") {
        const r = await chain.blockRewards(slot);
        if (!r) throw new HttpError(404, "Block not found");
        return { body: envelope(rewards.BlockRewardsType.toJson(r), slot) };
      }
      const r = await chain.syncCommitteeRewards(slot, rewardIds(post ? await readBody(req) : undefined));
      if (!r) throw new HttpError(404, "Block not found");
      return { body: envelope(rewards.SyncCommitteeRewardsType.toJson(r), slot) };
    }
    m = /^\/eth\/v1\/beacon\/states\/([^/]+)\/([a-z_]+)(?:\/([^/]+))?$/.exec(p);
    if (!m) throw new HttpError(404, "Not found");
    const [, id = "", what, sub] = m;
    const st = stateOf(id);
    const slot = st.slot;
    if (what === "fork") return { body: envelope(ssz.phase0.Fork.toJson(st.fork.toValue()), slot) };
    if (what === "finality_checkpoints") {
      return {
        body: envelope(
          {
            previous_justified: ssz.phase0.Checkpoint.toJson(st.previousJustifiedCheckpoint.toValue()),
            current_justified: ssz.phase0.Checkpoint.toJson(st.currentJustifiedCheckpoint.toValue()),
            finalized: ssz.phase0.Checkpoint.toJson(st.finalizedCheckpoint.toValue()),
          },
          slot,
        ),
      };
    }
    const queue = Object.hasOwn(PENDING_QUEUES, what ?? "")
      ? PENDING_QUEUES[what as keyof typeof PENDING_QUEUES]
      : undefined;
    if (queue) {
      if (!isElectra(st)) {
        const fork = chain.config.getForkName(slot);
        throw new HttpError(400, `Cannot retrieve ${queue.name} for pre-electra state fork=${fork}`);
      }
      const version = chain.config.getForkName(slot);
      return { body: envelope(queue.json(st), slot, version), version };
    }
    if (what === "validators" && sub) {
      const [v] = validatorsView(st, [sub], []);
      if (!v) throw new HttpError(404, "Validator not found");
      return { body: envelope(v, slot) };
    }
    if (what === "validators" || what === "validator_balances") {
      let ids = url.searchParams.getAll("id").flatMap((s) => s.split(","));
      let statuses = url.searchParams.getAll("status").flatMap((s) => s.split(","));
      if (post) {
        const body = (await readBody(req)) as { ids?: string[]; statuses?: string[] } | string[] | undefined;
        ids = Array.isArray(body) ? body : (body?.ids ?? []);
        statuses = Array.isArray(body) ? [] : (body?.statuses ?? []);
      }
      const found = validatorsView(st, ids, statuses);
      const data = what === "validators" ? found : found.map((v) => ({ index: v.index, balance: v.balance }));
      return { body: envelope(data, slot) };
    }
    throw new HttpError(404, "Not found");
  }

  // Each kind of answer's count, milliseconds from request to the body's end, and bytes, for a benchmark in
  // another process (`GET /devnet/served`, which also starts the count again): how long the node itself took.
  let served = new Map<string, { count: number; ms: number; bytes: number }>();
  const answered = (path: string, ms: number, bytes: number) => {
    const kind = path.replace(/\/(\d+|0x[0-9a-fA-F]+|head|genesis|finalized|justified)(?=\/|$)/g, "/{id}");
    const k = served.get(kind) ?? { count: 0, ms: 0, bytes: 0 };
    served.set(kind, { count: k.count + 1, ms: k.ms + ms, bytes: k.bytes + bytes });
  };

  return async function handle(req: IncomingMessage, res: ServerResponse) {
    const t0 = performance.now();
    const url = new URL(req.url ?? "/", "http://x");
    node.requests.set(url.pathname, (node.requests.get(url.pathname) ?? 0) + 1);
    if (url.pathname === "/devnet/served") {
      const data = Object.fromEntries(served);
      served = new Map();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data }));
      return;
    }
    let text: string | undefined;
    try {
      const { status = 200, body, data, version } = await route(req, url);
      res.writeHead(status, {
        "content-type": "application/json",
        ...(version ? { "eth-consensus-version": version } : {}),
      });
      text = body === undefined ? undefined : JSON.stringify(body);
      if (text !== undefined && data !== undefined) text = `${text.slice(0, -"null}".length)}${data}}`;
    } catch (err) {
      const status = err instanceof HttpError ? err.status : 500;
      res.writeHead(status, { "content-type": "application/json" });
      text = JSON.stringify({ code: status, message: (err as Error).message });
    }
    res.end(text, () => answered(url.pathname, performance.now() - t0, Buffer.byteLength(text ?? "")));
  };
}
