import { decodeEventLog, type Hex, parseAbi } from "viem";
import {
  CONSOLIDATION_REQUEST_CONTRACT,
  DEPOSIT_CONTRACT,
  WITHDRAWAL_REQUEST_CONTRACT,
} from "./contracts.ts";

const DEPOSIT_EVENT = parseAbi([
  "event DepositEvent(bytes pubkey, bytes withdrawal_credentials, bytes amount, bytes signature, bytes index)",
]);
const le64 = (h: Hex) => Buffer.from(h.slice(2), "hex").readBigUInt64LE(0);

/** A block's `execution_requests` in the Beacon API's JSON (what `ssz.electra.ExecutionRequests` reads). */
export interface ExecutionRequestsJson {
  deposits: {
    pubkey: string;
    withdrawal_credentials: string;
    amount: string;
    signature: string;
    index: string;
  }[];
  withdrawals: { source_address: string; validator_pubkey: string; amount: string }[];
  consolidations: { source_address: string; source_pubkey: string; target_pubkey: string }[];
}

/**
 * An execution block's requests as its logs carry them (EIP-6110 deposit events of the deposit contract,
 * EIP-7002 and EIP-7251 request records of their system contracts), in the Beacon API's JSON for
 * `execution_requests`, in log order.
 */
export function requestsFromLogs(
  logs: { address: string; data: Hex; topics: Hex[] }[],
): ExecutionRequestsJson {
  const req: ExecutionRequestsJson = { deposits: [], withdrawals: [], consolidations: [] };
  for (const log of logs) {
    const address = log.address.toLowerCase();
    if (address === DEPOSIT_CONTRACT) {
      const { args } = decodeEventLog({
        abi: DEPOSIT_EVENT,
        data: log.data,
        topics: log.topics as [Hex],
      }) as unknown as {
        args: { pubkey: Hex; withdrawal_credentials: Hex; amount: Hex; signature: Hex; index: Hex };
      };
      req.deposits.push({
        pubkey: args.pubkey,
        withdrawal_credentials: args.withdrawal_credentials,
        amount: String(le64(args.amount)),
        signature: args.signature,
        index: String(le64(args.index)),
      });
    } else if (address === WITHDRAWAL_REQUEST_CONTRACT && log.data.length === 2 + 76 * 2) {
      req.withdrawals.push({
        source_address: `0x${log.data.slice(2, 42)}`,
        validator_pubkey: `0x${log.data.slice(42, 138)}`,
        amount: String(BigInt(`0x${log.data.slice(138)}`)),
      });
    } else if (address === CONSOLIDATION_REQUEST_CONTRACT && log.data.length === 2 + 116 * 2) {
      req.consolidations.push({
        source_address: `0x${log.data.slice(2, 42)}`,
        source_pubkey: `0x${log.data.slice(42, 138)}`,
        target_pubkey: `0x${log.data.slice(138)}`,
      });
    }
  }
  return req;
}
