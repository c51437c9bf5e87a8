import assert from "node:assert/strict";
import { test } from "node:test";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import { decodeFunctionData, parseAbi, toFunctionSelector } from "viem";
import { withdrawalCredentials } from "../../chains/beacon.ts";
import { BEACON_NETWORKS, type BeaconNetwork } from "../../chains/beacon-networks.ts";
import { consolidationRequestTx, withdrawalRequestTx } from "../../chains/el-requests.ts";
import { bytesOf, GWEI_PER_ETH, hexOf } from "../../chains/evm.ts";
import { blsKeyFromSecret } from "./bls.ts";
import { batchDepositTx, buildDeposit, depositTx, type SignedDeposit, verifyDeposit } from "./builder.ts";
import { buildVoluntaryExit } from "./exit-builder.ts";
import { computeDepositDomain, computeSigningRoot } from "./ssz.ts";

const SK = 0x3f3e0a69a6a66aeaec606a2ccb47c703afb2e8ae64f70a1650c03343b06e8f0cn;
const POP_DST = "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_";
const ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root)",
  "function deposit(bytes[] pubkeys, bytes[] withdrawal_credentials, bytes[] signatures, bytes32[] deposit_data_roots, uint256[] collateral)",
]);

/** Second, independent BLS implementation (pure JS) with the Ethereum POP DST passed explicitly. */
export function nobleVerifies(d: SignedDeposit, network: BeaconNetwork = BEACON_NETWORKS.mainnet): boolean {
  const L = bls12_381.longSignatures;
  const domain = computeDepositDomain(bytesOf(network.genesisForkVersion));
  const msg = L.hash(computeSigningRoot(bytesOf(d.depositMessageRoot), domain), POP_DST);
  return L.verify(bytesOf(d.signature), msg, bytesOf(d.pubkey));
}

test("0x02 regression vectors of docs/chains/ethereum.md §4.5, verified by noble", () => {
  const key = blsKeyFromSecret(SK);
  assert.equal(
    hexOf(key.publicKey),
    "0x8666389c3fe6ff0bca9adba81504f380b9e2c719419760d561836472fafe295cb50696524e19cba084e1d788d66c80d6",
  );
  const wc = bytesOf("0200000000000000000000000000000000000000000000000000000000000001");
  const cases = [
    [
      32n,
      "e027be3f358b29822a12f62f9577900fc8cc3603bc9edc3425e97ba9530a1799",
      "60453be9738985e7015e484cbedeb5e036858b6c54f50ea1d1c81cce116bc0ad",
    ],
    [
      64n,
      "1cd5d9273ed0058dedcdc4d6e0204f7842325a7a188e0f852194f3a6ac58649e",
      "8221d8fcf17595144b9336b3645f0844b75723358c498bcbba3ff0c4d6d85ae6",
    ],
    [
      2048n,
      "9e8c68834f4e057444d7c2f933d45a8614cc682fe9ddc34c9cde6151549eee0a",
      "3cb57996afe5dd34b9b91543a91507db1bec7d395bfa4a0a40c3dc0ac6da3a85",
    ],
  ] as const;
  for (const [eth, msgRoot, dataRoot] of cases) {
    const d = buildDeposit({
      key,
      withdrawalCredentials: wc,
      amountGwei: eth * GWEI_PER_ETH,
      network: BEACON_NETWORKS.mainnet,
    });
    assert.equal(d.depositMessageRoot, `0x${msgRoot}`);
    assert.equal(d.depositDataRoot, `0x${dataRoot}`);
    assert.ok(nobleVerifies(d));
  }
});

test("withdrawal credentials 0x01 / 0x02 layout", () => {
  const addr = "0x00000000219ab540356cBB839Cbe05303d7705Fa";
  assert.equal(
    hexOf(withdrawalCredentials(addr, false)),
    "0x01000000000000000000000000000000219ab540356cbb839cbe05303d7705fa",
  );
  assert.equal(
    hexOf(withdrawalCredentials(addr, true)),
    "0x02000000000000000000000000000000219ab540356cbb839cbe05303d7705fa",
  );
});

test("self-verification rejects a tampered deposit; Hoodi signatures differ from mainnet", () => {
  const key = blsKeyFromSecret(SK);
  const wc = withdrawalCredentials("0x1111111111111111111111111111111111111111", false);
  const main = buildDeposit({
    key,
    withdrawalCredentials: wc,
    amountGwei: 32n * GWEI_PER_ETH,
    network: BEACON_NETWORKS.mainnet,
  });
  const hoodi = buildDeposit({
    key,
    withdrawalCredentials: wc,
    amountGwei: 32n * GWEI_PER_ETH,
    network: BEACON_NETWORKS.hoodi,
  });
  assert.notEqual(main.signature, hoodi.signature);
  assert.ok(nobleVerifies(hoodi, BEACON_NETWORKS.hoodi));
  assert.throws(() => verifyDeposit(main, BEACON_NETWORKS.hoodi), /signature/);
  assert.throws(
    () => verifyDeposit({ ...main, amount: 33n * GWEI_PER_ETH }, BEACON_NETWORKS.mainnet),
    /root/,
  );
  assert.throws(() =>
    buildDeposit({
      key,
      withdrawalCredentials: wc,
      amountGwei: GWEI_PER_ETH - 1n,
      network: BEACON_NETWORKS.mainnet,
    }),
  );
});

test("deposit and batch calldata decode with viem to exactly the deposits", () => {
  // Selectors and head layout as docs/chains/ethereum.md §1.5 and §2 give them (keccak-checked there).
  assert.equal(toFunctionSelector("deposit(bytes,bytes,bytes,bytes32)"), "0x22895118");
  assert.equal(toFunctionSelector("deposit(bytes[],bytes[],bytes[],bytes32[],uint256[])"), "0xc09bb1db");
  const wc = withdrawalCredentials("0x2222222222222222222222222222222222222222", true);
  const deposits = [1n, 2n, 3n].map((i) =>
    buildDeposit({
      key: blsKeyFromSecret(SK + i),
      withdrawalCredentials: wc,
      amountGwei: (31n + i) * GWEI_PER_ETH,
      network: BEACON_NETWORKS.hoodi,
    }),
  );
  for (const d of deposits) {
    const tx = depositTx(d, BEACON_NETWORKS.hoodi);
    assert.equal((tx.data.length - 2) / 2, 420);
    const word = (i: number) => BigInt(`0x${tx.data.slice(10 + 64 * i, 74 + 64 * i)}`);
    assert.equal(tx.data.slice(0, 10), "0x22895118");
    assert.deepEqual([word(0), word(1), word(2)], [0x80n, 0xe0n, 0x120n]);
    assert.equal(`0x${tx.data.slice(202, 266)}`, d.depositDataRoot);
    assert.equal(tx.value, (d.amount * 10n ** 9n).toString());
    const { args } = decodeFunctionData({ abi: ABI, data: tx.data as `0x${string}` });
    assert.deepEqual(args, [d.pubkey, d.withdrawalCredentials, d.signature, d.depositDataRoot]);
  }
  const batch = batchDepositTx(deposits, BEACON_NETWORKS.hoodi);
  assert.equal((batch.data.length - 2) / 2, 324 + 448 * 3);
  assert.equal(batch.data.slice(0, 10), "0xc09bb1db");
  assert.equal(batch.to, BEACON_NETWORKS.hoodi.batchDepositor);
  assert.equal(batch.value, (99n * 10n ** 18n).toString());
  const { args } = decodeFunctionData({ abi: ABI, data: batch.data as `0x${string}` });
  assert.deepEqual(args, [
    deposits.map((d) => d.pubkey),
    deposits.map((d) => d.withdrawalCredentials),
    deposits.map((d) => d.signature),
    deposits.map((d) => d.depositDataRoot),
    deposits.map((d) => d.amount * 10n ** 9n),
  ]);
  assert.throws(() => batchDepositTx([], BEACON_NETWORKS.hoodi));
});

test("voluntary exit: the ethdo / eth-staking-smith mainnet vector (EIP-7044 Capella domain)", () => {
  // ChorusOne/eth-staking-smith tests/e2e/presigned_exit_message.rs, cross-checked there with
  // `ethdo validator exit --offline` (exit_fork_version 0x03000000, mainnet genesis_validators_root).
  const key = blsKeyFromSecret(0x6d446ca271eb229044b9039354ecdfa6244d1a11615ec1a46fc82a800367de5dn);
  assert.equal(
    hexOf(key.publicKey),
    "0x8844cebb34d10e0e57f3c29ada375dafe14762ab85b2e408c3d6d55ce6d03317660bca9f2c2d17d8fbe14a2529ada1ea",
  );
  const exit = buildVoluntaryExit({
    key,
    validatorIndex: 100,
    epoch: 305658,
    network: BEACON_NETWORKS.mainnet,
  });
  assert.deepEqual(exit.message, { epoch: "305658", validator_index: "100" });
  assert.equal(
    exit.signature,
    "0xa74f22d26da9934c2a9c783799fb9e7bef49b3d7c3759a0683b52ee5d71516c0ecdbcc47703f11959c5e701a6c47194410bed800217bd4dd0dab1e0587b14551771accd04ff1c78302f9605f44c3894976c5b3537b70cb7ac9dcb5398dc22079",
  );
  // The same exit on Hoodi is another signature (other fork version and validators root).
  const hoodi = buildVoluntaryExit({
    key,
    validatorIndex: 100,
    epoch: 305658,
    network: BEACON_NETWORKS.hoodi,
  });
  assert.notEqual(hoodi.signature, exit.signature);
});

test("EIP-7002 / EIP-7251 request calldata: 56 bytes (amount big-endian Gwei) and 96 bytes", () => {
  const pk = `0x${"ab".repeat(48)}`;
  const from = "0x1111111111111111111111111111111111111111";
  const w = withdrawalRequestTx({ from, pubkey: pk, amountGwei: 10n * GWEI_PER_ETH, feeWei: 1n });
  assert.equal(w.to, "0x00000961Ef480Eb55e80D19ad83579A64c007002");
  assert.equal(w.data, `${pk}00000002540be400`);
  assert.equal((w.data.length - 2) / 2, 56);
  assert.equal(w.value, "1");
  assert.equal(
    withdrawalRequestTx({ from, pubkey: pk, amountGwei: 0n, feeWei: 3n }).data,
    `${pk}${"00".repeat(8)}`,
  );
  const c = consolidationRequestTx({ from, source: pk, target: `0x${"cd".repeat(48)}`, feeWei: 2n });
  assert.equal(c.to, "0x0000BBdDc7CE488642fb579F8B00f3a590007251");
  assert.equal(c.data, `${pk}${"cd".repeat(48)}`);
  assert.throws(
    () => withdrawalRequestTx({ from, pubkey: pk, amountGwei: 1n << 64n, feeWei: 1n }),
    /out of range/,
  );
  assert.throws(() => consolidationRequestTx({ from, source: "0x12", target: pk, feeWei: 1n }), /48-byte/);
});
