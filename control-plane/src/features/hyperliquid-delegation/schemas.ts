import { z } from "zod";
import { evmAddress, lowerCaseEvmAddress } from "../../chains/evm.ts";
import { MAX_JSON_SAFE_WEI, parseHypeAmount } from "./builder.ts";

export const Address = z.string().trim().pipe(evmAddress());

/**
 * `amount` is a JSON number (the spec's type): strings are refused. Its wei is derived from the number's
 * decimal text, and the reason for a refusal (minimum, decimals, wei overflow) is the error message.
 */
export const Amount = z
  .number({ error: (i) => (i.input === undefined ? "Required" : "Must be a JSON number, e.g. 1.5") })
  .transform((n, ctx) => {
    const parsed = parseHypeAmount(n);
    if (!parsed.ok) {
      ctx.addIssue({ code: "custom", message: parsed.reason });
      return z.NEVER;
    }
    return { wei: parsed.wei, text: parsed.text };
  });

export const OperationRequest = z.object({ amount: Amount, delegatorAddress: Address });
export type OperationRequest = z.output<typeof OperationRequest>;

export const BalanceQuery = z.object({ delegatorAddress: Address });

export const BroadcastRequest = z.object({
  signedTransaction: z.string().trim().min(1, { message: "Must not be empty" }).max(16_384),
});

const Hex = z
  .string()
  .regex(/^0x[0-9a-fA-F]{1,64}$/, { message: "Must be 0x followed by 1 to 64 hex digits" });
const Wei = z
  .number()
  .int()
  .min(1)
  .max(Number(MAX_JSON_SAFE_WEI), { message: "wei must fit a JSON-safe integer" });
const Nonce = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Chain = z.enum(["Mainnet", "Testnet"]);
const ChainId = z.string().regex(/^0x[0-9a-fA-F]{1,12}$/, { message: "Must be a hex chain id like 0x66eee" });

/** Strict: an unknown key in an action would reach Hyperliquid unsigned-for, so it is refused here. */
export const SignedAction = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("tokenDelegate"),
    signatureChainId: ChainId,
    hyperliquidChain: Chain,
    validator: lowerCaseEvmAddress(),
    wei: Wei,
    isUndelegate: z.boolean(),
    nonce: Nonce,
  }),
  z.strictObject({
    type: z.enum(["cDeposit", "cWithdraw"]),
    signatureChainId: ChainId,
    hyperliquidChain: Chain,
    wei: Wei,
    nonce: Nonce,
  }),
]);

export const SignedTransaction = z.object({
  action: SignedAction,
  nonce: Nonce,
  signature: z.object({
    r: Hex,
    s: Hex,
    v: z.union([z.literal(0), z.literal(1), z.literal(27), z.literal(28)]),
  }),
  vaultAddress: z.null().optional(),
});
export type SignedTransaction = z.output<typeof SignedTransaction>;

export const UnsignedResponse = z.object({
  result: z.object({
    amount: z.string(),
    unsignedTransactionBase64: z.string(),
    createdAt: z.iso.datetime(),
  }),
});
export const BalanceResponse = z.object({
  result: z.object({
    delegatorAddress: z.string(),
    spotBalance: z.number(),
    stakingBalance: z.number(),
    delegatedBalance: z.number(),
    pendingWithdrawal: z.number(),
    delegations: z.array(
      z.object({
        validator: z.string(),
        amount: z.number(),
        lockedUntil: z.number().int(),
        status: z.enum(["Active", "Undelegating", "Locked"]),
      }),
    ),
    createdAt: z.iso.datetime(),
  }),
});
export const BroadcastResponse = z.object({
  result: z.object({
    transactionHash: z.string().nullable(),
    status: z.string(),
    createdAt: z.iso.datetime(),
  }),
});

/** `from`/`to`: UTC days, both ends included. */
export const RewardsQuery = z
  .object({
    delegatorAddress: Address,
    from: z.iso.date().optional(),
    to: z.iso.date().optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: "from must not be after to", path: ["to"] });

const Hype = { amount: z.string(), amountWei: z.string() };
export const RewardsResponse = z.object({
  result: z.object({
    delegatorAddress: z.string(),
    totalRewards: z.string(),
    totalRewardsWei: z.string(),
    rewards: z.array(
      z.object({
        time: z.number().int(),
        date: z.iso.date(),
        source: z.enum(["delegation", "commission"]),
        ...Hype,
      }),
    ),
  }),
});
export const HistoryResponse = z.object({
  result: z.array(
    z.object({
      time: z.number().int(),
      hash: z.string(),
      type: z.string(),
      validator: z.string().nullable(),
      ...Hype,
    }),
  ),
});
