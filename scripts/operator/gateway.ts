import type { ProviderRow, ProviderStatus } from "@stake/control-plane/operator";
import { coinsToBaseUnits, formatCoins, parseDecimal } from "@stake/db/coin";
import { type Command, flag, requirePositional, UsageError } from "./context.ts";

const STATUSES = ["active", "disabled", "degraded"] as const satisfies readonly ProviderStatus[];

function checkUrl(value: string): string {
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError("--url must be http(s)");
  if (url.search || url.hash) throw new UsageError("--url takes an origin and optional base path only");
  return url.toString().replace(/\/$/, "");
}

function checkCost(value: string): string {
  try {
    parseDecimal(value);
  } catch {
    throw new UsageError("--cost must be a non-negative decimal USD amount, e.g. 0.001");
  }
  return value;
}

function checkStatus(value: string | undefined): ProviderStatus | undefined {
  if (value === undefined) return undefined;
  if (!STATUSES.includes(value as ProviderStatus))
    throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
  return value as ProviderStatus;
}

/**
 * How upgraded (WebSocket) connections are billed (docs/architecture.md §11): `--slice-seconds` (default
 * 60), `--slice-messages` (client messages per slice; `none` for no cap), `--slice-cost` (USD per slice;
 * `request` for the request price).
 */
const SLICE_FLAGS = ["slice-cost", "slice-seconds", "slice-messages"];
const SLICE_USAGE = "[--slice-cost <usd>|request] [--slice-seconds <s>] [--slice-messages <n>|none]";

function sliceSettings(args: { flags: Record<string, string | boolean | undefined> }) {
  const cost = flag(args, "slice-cost");
  const seconds = flag(args, "slice-seconds");
  const messages = flag(args, "slice-messages");
  const count = (name: string, v: string, max: number) => {
    if (!/^[1-9][0-9]{0,8}$/.test(v) || Number(v) > max)
      throw new UsageError(`--${name} must be a whole number from 1 to ${max}`);
    return Number(v);
  };
  return {
    ...(cost === undefined ? {} : { upgradeSliceUsd: cost === "request" ? null : checkCost(cost) }),
    ...(seconds === undefined ? {} : { upgradeSliceSeconds: count("slice-seconds", seconds, 86_400) }),
    ...(messages === undefined
      ? {}
      : {
          upgradeSliceMessages: messages === "none" ? null : count("slice-messages", messages, 1_000_000_000),
        }),
  };
}

const present = (p: ProviderRow) => ({
  id: p.id,
  key: p.key,
  originUrl: p.originUrl,
  costInUSD: p.costInUsd,
  status: p.status,
  upgradeSlice: {
    costInUSD: p.upgradeSliceUsd ?? p.costInUsd,
    seconds: p.upgradeSliceSeconds,
    messages: p.upgradeSliceMessages,
  },
  updatedAt: p.updatedAt.toISOString(),
});

/** Gateway providers, the coin rate, party funding and gateway key deactivation. */
export const gatewayCommands: Record<string, Command> = {
  "providers add": {
    usage: `providers add <key> --url <origin[/base]> --cost <usd> [--status active|disabled|degraded] ${SLICE_USAGE}`,
    summary: "register a gateway provider",
    valueFlags: ["url", "cost", "status", ...SLICE_FLAGS],
    async run(ctx, args) {
      const key = requirePositional(args, 0, "key");
      if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(key))
        throw new UsageError("provider key: letters, digits, . _ -");
      const url = flag(args, "url");
      const cost = flag(args, "cost");
      if (!url || !cost) throw new UsageError("--url and --cost are required");
      const row = await ctx.gateway.addProvider({
        key,
        originUrl: checkUrl(url),
        costInUsd: checkCost(cost),
        status: checkStatus(flag(args, "status")) ?? "active",
        ...sliceSettings(args),
      });
      if (!row) throw new UsageError(`provider ${key} already exists (use providers update)`);
      return {
        data: present(row),
        text: `provider ${row.key} → ${row.originUrl} at ${row.costInUsd} USD (${row.status})`,
      };
    },
  },
  "providers update": {
    usage: `providers update <key> [--url <origin[/base]>] [--cost <usd>] [--status active|disabled|degraded] ${SLICE_USAGE}`,
    summary: "change a provider (takes effect on every gateway within a second)",
    valueFlags: ["url", "cost", "status", ...SLICE_FLAGS],
    async run(ctx, args) {
      const key = requirePositional(args, 0, "key");
      const url = flag(args, "url");
      const cost = flag(args, "cost");
      const status = checkStatus(flag(args, "status"));
      const set = {
        ...(url ? { originUrl: checkUrl(url) } : {}),
        ...(cost ? { costInUsd: checkCost(cost) } : {}),
        ...(status ? { status } : {}),
        ...sliceSettings(args),
      };
      if (!Object.keys(set).length) throw new UsageError("nothing to update");
      const row = await ctx.gateway.updateProvider(key, set);
      if (!row) throw new UsageError(`no provider ${key}`);
      return {
        data: present(row),
        text: `provider ${row.key} → ${row.originUrl} at ${row.costInUsd} USD (${row.status})`,
      };
    },
  },
  "providers list": {
    usage: "providers list",
    summary: "list gateway providers",
    async run(ctx) {
      const data = (await ctx.gateway.listProviders()).map(present);
      const text = data.length
        ? data
            .map(
              (p) =>
                `${p.key.padEnd(20)} ${p.status.padEnd(9)} ${p.costInUSD.padStart(14)} USD  ${p.originUrl}`,
            )
            .join("\n")
        : "no providers";
      return { data, text };
    },
  },
  "rate set": {
    usage: "rate set <usd-per-coin>",
    summary: "set the ledger coin price used to convert provider USD costs",
    async run(ctx, args) {
      const value = requirePositional(args, 0, "usd-per-coin");
      try {
        if (parseDecimal(value).digits === 0n) throw new Error();
      } catch {
        throw new UsageError("rate must be a positive decimal, e.g. 0.15");
      }
      const row = await ctx.gateway.setCoinRate(value);
      return { data: { id: row.id, usdPerCoin: row.usdPerCoin }, text: `1 coin = ${value} USD` };
    },
  },
  fund: {
    usage: "fund <partyId> <amount-in-coins> --ref <unique-ref>",
    summary: "credit a party (ledger entry in Postgres, applied to Redis once per ref)",
    valueFlags: ["ref"],
    async run(ctx, args) {
      const partyId = requirePositional(args, 0, "partyId");
      const amountText = requirePositional(args, 1, "amount-in-coins");
      const ref = flag(args, "ref");
      if (!ref) throw new UsageError("--ref is required (re-running with the same ref credits once)");
      let amount: bigint;
      try {
        amount = coinsToBaseUnits(amountText);
      } catch (err) {
        throw new UsageError(`amount: ${(err as Error).message}`);
      }
      const r = await ctx.gateway.fundParty({ partyId, amount, ref });
      if (!r) throw new UsageError(`no party ${partyId}`);
      const data = {
        entryId: r.entryId,
        partyId,
        amount: amountText,
        ref,
        applied: r.applied,
        balance: formatCoins(r.balance),
      };
      return {
        data,
        text: r.applied
          ? `credited ${amountText} to ${partyId}; balance ${data.balance}`
          : `ref ${ref} was already applied; balance ${data.balance}`,
      };
    },
  },
  "gateway-keys deactivate": {
    usage: "gateway-keys deactivate <keyId>",
    summary: "deactivate a gateway API key (every gateway refuses it within a second)",
    async run(ctx, args) {
      const keyId = requirePositional(args, 0, "keyId");
      const row = await ctx.gateway.deactivateKey(keyId);
      if (!row) throw new UsageError(`no gateway key ${keyId}`);
      return {
        data: { id: row.id, active: row.active, deactivatedAt: row.deactivatedAt?.toISOString() },
        text: `${row.id} deactivated`,
      };
    },
  },
};
