import { z } from "zod";

/** A Sui address or object id: 32 bytes, `0x` and 64 hex digits (docs/chains/polygon-sui.md §2.1). */
export const SUI_ADDRESS = /^0x[0-9a-fA-F]{64}$/;

/** A Sui address, compared lower-case. */
export const suiAddress = () =>
  z
    .string()
    .regex(SUI_ADDRESS, "Must be a Sui address: 0x followed by 64 hex digits")
    .transform((a) => a.toLowerCase());
