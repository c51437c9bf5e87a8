import assert from "node:assert/strict";
import { test } from "node:test";
import { ByteVectorType, ContainerType, UintBigintType } from "@chainsafe/ssz";
import { BEACON_NETWORKS } from "../../chains/beacon-networks.ts";
import {
  computeDepositDomain,
  computeSigningRoot,
  depositDataRoot,
  depositMessageRoot,
  forkDataRoot,
} from "./ssz.ts";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const fill = (n: number, v: number) => new Uint8Array(n).fill(v);
const fromHex = (h: string) => new Uint8Array(Buffer.from(h.replace(/^0x/, ""), "hex"));

test("ethstaker-deposit-cli SSZ vectors (docs/chains/ethereum.md §4.2)", () => {
  const v = fill(4, 0x12);
  assert.equal(hex(forkDataRoot(v)), "0d66608af557f4fadbfce248ac37f6e7639ce371100c43d15aad05cb08ac1dc2");
  assert.equal(
    hex(computeDepositDomain(v)),
    "030000000d66608af557f4fadbfce248ac37f6e7639ce371100c43d15aad05cb",
  );
  const msg = { pubkey: fill(48, 0x12), withdrawalCredentials: fill(32, 0x12), amount: 100n };
  assert.equal(
    hex(computeSigningRoot(depositMessageRoot(msg), fill(32, 0x12))),
    "67a3330ff87bdb46bb7b80ca7a641e398d6ac4e87a6856527cacc829fb61896f",
  );
});

test("deposit domains of mainnet and Hoodi (docs/chains/ethereum.md §1.4)", () => {
  assert.equal(
    hex(computeDepositDomain(fromHex(BEACON_NETWORKS.mainnet.genesisForkVersion))),
    "03000000f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a9",
  );
  assert.equal(
    hex(computeDepositDomain(fromHex(BEACON_NETWORKS.hoodi.genesisForkVersion))),
    "03000000719103511efa4f1362ff2a50996cccf329cc84cb410c5e5c7d351d03",
  );
});

test("hand-written roots equal @chainsafe/ssz ContainerType roots", () => {
  const Bytes48 = new ByteVectorType(48);
  const Bytes32 = new ByteVectorType(32);
  const Bytes96 = new ByteVectorType(96);
  const Gwei = new UintBigintType(8);
  const DepositMessage = new ContainerType({ pubkey: Bytes48, withdrawalCredentials: Bytes32, amount: Gwei });
  const DepositData = new ContainerType({
    pubkey: Bytes48,
    withdrawalCredentials: Bytes32,
    amount: Gwei,
    signature: Bytes96,
  });
  for (let i = 0; i < 5; i++) {
    const m = {
      pubkey: fill(48, i + 1),
      withdrawalCredentials: fill(32, 7 * i),
      amount: 32_000_000_000n * BigInt(i + 1),
    };
    const d = { ...m, signature: fill(96, 200 - i) };
    assert.equal(hex(depositMessageRoot(m)), hex(DepositMessage.hashTreeRoot(m)));
    assert.equal(hex(depositDataRoot(d)), hex(DepositData.hashTreeRoot(d)));
  }
  assert.throws(() =>
    depositMessageRoot({ pubkey: fill(47, 1), withdrawalCredentials: fill(32, 0), amount: 1n }),
  );
});
