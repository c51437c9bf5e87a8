import type { Address } from "viem";
import { AppError } from "../../errors.ts";
import type { PolygonL1 } from "./client.ts";

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * The operator's ValidatorShare: the configured address, or the one StakeManager.getValidatorContract
 * gives for the configured id (docs/chains/polygon-sui.md §1.2), checked once with `validatorId()` so a
 * wrong address never serves another validator's numbers. Resolved on first use and kept; a failure is not
 * kept, the next request tries again.
 */
export function createValidatorShareResolver(deps: {
  l1: PolygonL1;
  validatorId: bigint;
  validatorShare: Address | undefined;
  stakeManager: Address;
}) {
  let resolved: Promise<{ address: Address; validatorId: bigint }> | undefined;
  const resolve = async () => {
    const address =
      deps.validatorShare ?? (await deps.l1.validatorContract(deps.stakeManager, deps.validatorId));
    if (address.toLowerCase() === ZERO) {
      throw new AppError(
        "POLYGON_VALIDATOR_NOT_FOUND",
        `Validator ${deps.validatorId} has no ValidatorShare on StakeManager ${deps.stakeManager}`,
      );
    }
    const id = await deps.l1.validatorId(address);
    if (id === null) {
      throw new AppError("POLYGON_VALIDATOR_NOT_FOUND", `${address} is not a ValidatorShare contract`);
    }
    if (id !== deps.validatorId) {
      throw new AppError(
        "POLYGON_VALIDATOR_NOT_FOUND",
        `ValidatorShare ${address} belongs to validator ${id}, not the configured ${deps.validatorId}`,
      );
    }
    return { address: address.toLowerCase() as Address, validatorId: id };
  };
  return {
    get(): Promise<{ address: Address; validatorId: bigint }> {
      resolved ??= resolve().catch((err) => {
        resolved = undefined;
        throw err;
      });
      return resolved;
    },
    /** The next `get` resolves again (the chain was re-indexed: its contracts may be elsewhere). */
    forget() {
      resolved = undefined;
    },
  };
}

export type ValidatorShareResolver = ReturnType<typeof createValidatorShareResolver>;
